import type { McpServer } from "@countersign/protocol/wire";

/** Whether an authorization header is stored: the header itself is write-only and never shown. */
export function CredentialState({ credential }: { credential: McpServer["credential"] }) {
  if (!credential) return <span className="muted">not applicable</span>;
  return credential.configured ? (
    <span data-testid="credential-state">configured (version {credential.version})</span>
  ) : (
    <span data-testid="credential-state" className="muted">
      not configured
    </span>
  );
}
