/**
 * SPEC 3.9 (REASON_REJECTED): a window's reason is shown to everyone who can
 * read the organization, so text that looks like a credential is refused
 * rather than stored. Heuristics, tuned to refuse what people paste by mistake:
 * API keys of this service, bearer tokens, JWTs, private keys, well-known
 * cloud key shapes, and long unbroken runs of base64 or hex.
 */
const patterns: RegExp[] = [
  /svc_(live|test)_[a-z0-9]{12}_/i,
  /\bbearer\s+\S{16,}/i,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./, // JWT
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /\b(AKIA|ASIA)[A-Z0-9]{16}\b/, // AWS access key id
  /\b(sk|rk|pk)_(live|test)_[A-Za-z0-9]{16,}/, // payment-provider keys
  /\bgh[pousr]_[A-Za-z0-9]{30,}/, // GitHub tokens
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/, // Slack tokens
  /(password|passwd|secret|api[_-]?key|token)\s*[:=]\s*\S{6,}/i,
];

/** A run of 32+ characters from the base64url/base64 alphabets mixing letters and digits. */
function hasHighEntropyRun(text: string): boolean {
  for (const run of text.match(/[A-Za-z0-9+/_=-]{32,}/g) ?? []) {
    if (/[0-9]/.test(run) && /[A-Za-z]/.test(run)) return true;
  }
  return false;
}

export function looksLikeSecret(text: string): boolean {
  return patterns.some((p) => p.test(text)) || hasHighEntropyRun(text);
}
