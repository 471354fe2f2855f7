/**
 * The one Cloud API client (`@countersign/client/cloud`): every answer validated by its schema of
 * `@countersign/protocol/wire`, every failure a CloudApiError. Browser-safe: no node: imports.
 */
export {
  API_PREFIX,
  createCloudClient,
  noContent,
  type CloudClient,
  type CloudClientOptions,
  type Method,
  type RequestOptions,
} from "./client.js";
export { CloudApiError } from "./errors.js";
