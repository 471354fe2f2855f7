/**
 * Wire shapes the dashboard reads, as the Cloud API answers them. Those the Cloud API declares as
 * zod schemas come from there (protocol/src/wire), the rest are written out here.
 */
import type { ManagedBy, Organization as WireOrganization, Role } from "@countersign/protocol/wire";
export type { ApiKey, Invitation, Member, Role, Session, User } from "@countersign/protocol/wire";
/** The dashboard is signed in, and a member always has a role. */
export type Organization = Omit<WireOrganization, "role"> & { role: Role };

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}
export interface Identity {
  kid: string;
  status: string;
  actor_type: string;
  name?: string | null;
  created_at?: string;
  documents?: unknown[];
  [k: string]: unknown;
}
export interface Agent {
  id: string;
  name: string;
  status: "active" | "disabled";
  policy_id: string | null;
  policy?: { id: string; name: string } | null;
  managed_by?: ManagedBy | null;
  [k: string]: unknown;
}
export interface Policy {
  id: string;
  name: string;
  active_version?: { id: string; version: number } | null;
  [k: string]: unknown;
}
export interface Delegation {
  id: string;
  object_id: string;
  permissions: string[];
  expires_at: string;
  state: "active" | "expired" | "revoked";
  revoked_at?: string | null;
  [k: string]: unknown;
}
export interface ActionSummary {
  id: string;
  status: string;
  execution: "gateway" | "caller";
  agent: { id: string; name: string } | null;
  tool: string;
  action: string;
  amount: { value: string; currency: string } | null;
  arguments_digest: string;
  approval_request_id: string | null;
  receipt_id: string | null;
  created_at: string;
  [k: string]: unknown;
}
export interface SignedObjectJson {
  id: string;
  body: {
    type: string;
    actor: string;
    on_behalf_of: string | null;
    thread: string | null;
    payload: Record<string, unknown>;
    [k: string]: unknown;
  };
  signature: string;
}
/** The approval request as the Cloud API answers it: the wire type shared with the api and the CLI. */
export type { Approval } from "@countersign/protocol/wire";
export interface Receipt {
  id: string;
  kind: string;
  outcome: string;
  protected_action_id: string;
  receipt_object_id: string;
  thread_id: string;
  head_object_id: string;
  issuer_kid: string;
  bundle_sha256: string;
  bundle_size: number;
  created_at: string;
  action?: {
    id: string;
    status: string;
    tool: string;
    action: string;
    agent: { name: string } | null;
  } | null;
  chain?: { id: string; type: string; actor: string }[];
  participants?: unknown[];
  delegations?: unknown[];
  verification?: {
    valid: boolean;
    checks:
      { name: string; passed?: boolean; ok?: boolean; [k: string]: unknown }[] | Record<string, unknown>;
    errors: unknown[];
    warnings: unknown[];
  };
  [k: string]: unknown;
}

export type { AuditEntry, Billing, ManagedBy, Overview, Usage } from "@countersign/protocol/wire";
/** A figure of the plan: `limit` null is unlimited. */
export interface Allowance {
  used: number;
  limit: number | null;
}
