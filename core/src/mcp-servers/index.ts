/** MCP servers and their tools (SPEC 2.3): the stored credential, input schema rules and tool declarations shared by the Cloud API and the Gateway. */
export {
  mcpCredentialContext,
  encryptMcpCredential,
  decryptMcpCredential,
  AUTHORIZATION_PATTERN,
  MAX_AUTHORIZATION_LENGTH,
  type CredentialRead,
} from "./credential.js";
export { checkInputSchema, MAX_INPUT_SCHEMA_BYTES, type SchemaCheck } from "./input-schema.js";
export { readToolDeclaration, declarationMembers, MAX_DECLARATION_MEMBER_BYTES } from "./tool-declaration.js";
