/** Wire shapes the dashboard reads, as the Cloud API answers them (members named by SPEC 2 and 4). */
export type Role = "owner" | "admin" | "approver" | "developer" | "viewer";

export interface User {
  id: string;
  email: string;
  name: string | null;
  email_verified: boolean;
}
export interface Session {
  user: User;
  csrf_token: string;
  current_organization_id: string | null;
  expires_at: string;
  idle_expires_at: string;
}
export interface Organization {
  id: string;
  name: string;
  slug: string;
  role: Role;
  approval_ttl_seconds: number;
  agent_disclosure: string;
  observe_max_hours: number;
  data_retention_days: number | null;
  [k: string]: unknown;
}
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
  [k: string]: unknown;
}
export interface Policy {
  id: string;
  name: string;
  active_version?: { id: string; version: number } | null;
  [k: string]: unknown;
}
export interface ApiKey {
  id: string;
  name: string;
  kind: "gateway" | "management";
  environment: "live" | "test";
  prefix: string;
  agent_id: string | null;
  state: "active" | "expired" | "revoked";
  revoked_at?: string | null;
  created_at: string;
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
export interface Member {
  user_id: string;
  email: string;
  name: string | null;
  role: Role;
  [k: string]: unknown;
}
export interface Invitation {
  id: string;
  email: string;
  role: Role;
  expires_at: string;
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
