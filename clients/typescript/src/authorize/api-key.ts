import { ServiceAuthError } from "./errors.js";

/**
 * The API key format of SPEC 5.1, exactly: anything else (a trailing newline
 * from a secrets file, a stray space) is refused before any byte is sent, so a
 * key is never sent somewhere in a shape the Gateway would have to log.
 */
const API_KEY = /^svc_(live|test)_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/;

export function checkApiKey(apiKey: unknown): string {
  if (typeof apiKey !== "string" || !API_KEY.test(apiKey)) {
    // The message never repeats the key.
    throw new ServiceAuthError(
      "MALFORMED_API_KEY",
      "the API key is not in the format svc_(live|test)_<12 characters>_<43 characters> (check for whitespace or a newline)",
    );
  }
  return apiKey;
}
