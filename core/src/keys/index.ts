export { parseKey, formatKey, bearerKey, type ParsedKey, type KeyEnvironment } from "./format.js";
export { generateKey, generatePrefix } from "./generate.js";
export { hashSecret, secretMatches } from "./secret-hash.js";
