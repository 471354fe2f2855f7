export { parseKey, formatKey, bearerKey, type ParsedKey, type KeyEnvironment } from "./format.js";
export { generateKey, generatePrefix } from "./generate.js";
export { hashSecret, secretMatches, hmacMatches } from "./secret-hash.js";
export {
  authenticateKey,
  checkKeyRow,
  rolesCreatingKeys,
  type AuthenticatedKey,
  type KeyCheck,
  type KeyKind,
  type KeyRefusal,
} from "./authenticate.js";
export { insertApiKey, KEY_COLUMNS, KEY_FROM, type KeyRow, type NewApiKey } from "./store.js";
