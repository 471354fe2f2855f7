import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import type { OrganizationAccess } from "../access/enforce.js";
import type { Principal } from "../access/principal.js";
import type { Role } from "../access/types.js";

/** A route plugin's instance with zod schemas as types. */
export const typed = (app: FastifyInstance) => app.withTypeProvider<ZodTypeProvider>();

export { nameSchema, pageQuery } from "@countersign/protocol/wire";
export const emailSchema = z.email().max(254).transform((v) => v.toLowerCase());
/** SPEC 5.5, 8.5: 12 to 256 characters. */
export const passwordSchema = z.string().min(12).max(256);
export const tokenSchema = z.string().min(1).max(200);
export const uuidParam = z.uuid();
export const orgParams = z.strictObject({ org_id: uuidParam });
export const roleSchema = z.enum(["owner", "admin", "approver", "developer", "viewer"]);

export type SessionPrincipal = Extract<Principal, { kind: "session" }>;

/** The signed-in person (the access table already refused everyone else on these routes). */
export function sessionOf(request: FastifyRequest): SessionPrincipal {
  const p = request.principal;
  if (p.kind !== "session") throw new ServiceError("UNAUTHENTICATED", "sign in");
  return p;
}

/** The organization in the path, as checked by the access table. */
export function organizationOf(request: FastifyRequest): OrganizationAccess {
  if (!request.organization) throw new ServiceError("NOT_FOUND", "organization not found");
  return request.organization;
}

export const isAdmin = (role: Role | null) => role === "owner" || role === "admin";

/** Opaque cursors: base64url of JSON, never trusted beyond their shape. */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}
export function decodeCursor<T>(cursor: string | undefined, shape: z.ZodType<T>): T | undefined {
  if (cursor === undefined) return undefined;
  try {
    return shape.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
  } catch {
    throw new ServiceError("VALIDATION_FAILED", "the query is invalid", { issues: [{ path: "cursor", code: "invalid_cursor", message: "not a cursor of this list" }] });
  }
}

/** One page of a keyset list read with limit + 1 rows: its items, and a cursor after the last when more follow. */
export function keysetPage<Row, Item>(
  rows: Row[],
  limit: number,
  item: (row: Row) => Item,
  cursorOf: (last: Row) => unknown,
): { items: Item[]; next_cursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map((row) => item(row)),
    next_cursor: rows.length > limit && last ? encodeCursor(cursorOf(last)) : null,
  };
}

/** pg unique violation of a named constraint or index. */
export function isUniqueViolation(err: unknown, name?: string): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === "23505" && (name === undefined || e.constraint === name);
}
