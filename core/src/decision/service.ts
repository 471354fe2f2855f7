import type { AuthenticatedKey } from "../keys/authenticate.js";
import type { Admission } from "./admission.js";
import type { DecisionContext } from "./context.js";

/** One POST /v1/authorize call after the HTTP-level checks passed. */
export interface AuthorizeCall {
  key: AuthenticatedKey;
  tool: string;
  arguments: Record<string, unknown>;
  /** RFC 8785 text of the arguments (argument-limits.ts), what `arguments_digest` covers. */
  canonicalArguments: string;
  idempotencyKey: string | null;
  /** Already capped at 60 (SPEC 8.4). */
  waitSeconds: number;
  /** The organization slot; released while the call waits for a person. */
  slot: { release: () => void };
  signal?: AbortSignal;
  /** The decision context read with the key check (admission.ts); read again when absent. */
  context?: DecisionContext;
}

export interface AuthorizeAnswer {
  http: 200 | 400 | 401 | 503;
  body: Record<string, unknown>;
}

export interface AuthorizeService {
  /** The key check and rate limit, with the context of the call's tool when it is known (one round trip). */
  admit(
    hashKey: Buffer,
    keyText: string,
    cost: number,
    intent: { tool: string; idempotencyKey: string | null } | null,
  ): Promise<Admission>;
  authorize(call: AuthorizeCall): Promise<AuthorizeAnswer>;
}
