import type { ManagedBy } from "@countersign/protocol/wire";

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
  managed_by?: ManagedBy | null;
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
  scopes: string[];
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
export interface Approval {
  id: string;
  status: string;
  expires_at: string;
  approver_kids: string[];
  approver_roles?: string[];
  approver_count?: number;
  task_object_id: string;
  action: ActionSummary | null;
  proposal: SignedObjectJson;
  policy?: {
    policy_id?: string;
    version?: number;
    version_id?: string;
    rule_id?: string | null;
    digest?: string;
  } | null;
  approvers?: { user_id?: string; email?: string; name?: string | null; kid?: string }[];
  [k: string]: unknown;
}
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

export type { ManagedBy } from "@countersign/protocol/wire";
export interface AuditEntry {
  id: string;
  action: string;
  actor: { type: string; id: string | null; label: string | null };
  target: { type: string; id: string | null } | null;
  details: Record<string, unknown>;
  created_at: string;
}
export interface Overview {
  period: { days: number; from: string; to: string };
  actions: {
    total: number;
    by_status: Record<string, number>;
    by_policy_effect: Record<string, number>;
    by_environment: Record<string, number>;
    by_day: { day: string; by_status: Record<string, number> }[];
  };
  receipts: { by_outcome: Record<string, number> };
  approvals: { pending: number };
  agents: { active: number };
}
/** A figure of the plan: `limit` null is unlimited. */
export interface Allowance {
  used: number;
  limit: number | null;
}
export interface Usage {
  plan: string;
  month: string;
  protected_actions: Allowance;
  months: { month: string; protected_actions: number }[];
  members: Allowance;
  api_keys: Allowance;
  webhook_endpoints: Allowance;
  agents: Allowance;
  mcp_servers: Allowance;
  tools: Allowance;
  policies: Allowance;
  retention_days: number | null;
}
export interface Billing {
  configured: boolean;
  plan: string;
  subscription: { status?: string; current_period_end?: string; [k: string]: unknown } | null;
  quotas: Record<string, number | null>;
}
