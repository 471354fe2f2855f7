/** MCP servers and their tools (SPEC 2.3): the stored credential and input schema rules shared by the Cloud API and the Gateway. */
export {
  mcpCredentialContext,
  encryptMcpCredential,
  decryptMcpCredential,
  AUTHORIZATION_PATTERN,
  MAX_AUTHORIZATION_LENGTH,
  type CredentialRead,
} from "./credential.js";
export { checkInputSchema, MAX_INPUT_SCHEMA_BYTES, type SchemaCheck } from "./input-schema.js";
