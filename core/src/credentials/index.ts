export { encryptCredential, decryptCredential, CredentialKeyError } from "./credential-box.js";
