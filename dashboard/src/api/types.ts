/**
 * Wire shapes the dashboard reads, as the Cloud API answers them. Those the Cloud API declares as
 * zod schemas come from there (protocol/src/wire), the rest are written out here.
 */
import type { Organization as WireOrganization, Role } from "@countersign/protocol/wire";
export type {
  Agent,
  Policy,
  ReceiptDetail as Receipt,
  ApiKey,
  Action,
  Delegation,
  Identity,
  Invitation,
  Member,
  Role,
  Session,
  User,
} from "@countersign/protocol/wire";
/** The dashboard is signed in, and a member always has a role. */
export type Organization = Omit<WireOrganization, "role"> & { role: Role };

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
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

export type {
  AuditEntry,
  Billing,
  BillingRedirect,
  ManagedBy,
  Overview,
  Usage,
} from "@countersign/protocol/wire";
/** A figure of the plan: `limit` null is unlimited. */
export interface Allowance {
  used: number;
  limit: number | null;
}
