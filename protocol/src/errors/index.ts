export { cloudApiCodes, httpStatusOf, type CloudApiCode } from "./cloud-api-codes.js";
export {
  gatewayCodes,
  gatewayStatuses,
  statusOf,
  retryableGatewayCodes,
  jsonRpcErrors,
  type GatewayCode,
  type GatewayStatus,
} from "./gateway-codes.js";
export { ServiceError, type Issue, type ErrorDetails } from "./service-error.js";
