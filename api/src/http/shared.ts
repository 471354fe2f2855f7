import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { engineObject, noContentSchema } from "@countersign/protocol/wire";
import { parseStrictJson } from "@countersign/core/text";
import type { OrganizationAccess } from "../access/enforce.js";
import type { Principal } from "../access/principal.js";
import type { Role } from "../access/types.js";

/** A route plugin's instance with zod schemas as types. */
export const typed = (app: FastifyInstance) => app.withTypeProvider<ZodTypeProvider>();

export {
  nameSchema,
  pageQuery,
  emailSchema,
  passwordSchema,
  tokenSchema,
  noContentSchema,
  roleSchema,
  instantSchema,
} from "@countersign/protocol/wire";
export const uuidParam = z.uuid();
export const orgParams = z.strictObject({ org_id: uuidParam });
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

/**
 * A cursor read back in full before SQL sees it: base64url of strict JSON
 * (the text rule: no U+0000, lone surrogates or invalid UTF-8) of exactly the
 * shape this list writes; anything else is 400 VALIDATION_FAILED.
 */
export function decodeCursor<T>(cursor: string | undefined, shape: z.ZodType<T>): T | undefined {
  if (cursor === undefined) return undefined;
  const invalid = () =>
    new ServiceError("VALIDATION_FAILED", "the query is invalid", {
      issues: [{ path: "cursor", code: "invalid_cursor", message: "not a cursor of this list" }],
    });
  if (!/^[A-Za-z0-9_-]*$/.test(cursor)) throw invalid();
  const parsed = parseStrictJson(Buffer.from(cursor, "base64url"));
  if (!parsed.ok) throw invalid();
  const value = shape.safeParse(parsed.value);
  if (!value.success) throw invalid();
  return value.data;
}

/** What `toISOString()` writes, and only that: the time half of the cursors lists write. */
const cursorTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
  .refine((v) => {
    const t = Date.parse(v);
    return v.slice(0, 4) !== "0000" && Number.isFinite(t) && new Date(t).toISOString() === v;
  });
/** The cursor of lists ordered by a time and the id: `[time, id]`. */
export const timeCursor = z.tuple([cursorTime, z.uuid()]);
/** The cursor of lists ordered by name and id: `[name, id]`. */
export const nameCursor = z.tuple([z.string().max(200), z.uuid()]);

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

/** The answer schema of a route that answers 204 with no body. */
export const noContent = noContentSchema;

/**
 * A member whose shape another module owns and types (a policy lint, an
 * examples report, a simulation): typed by it here, and checked to be a JSON
 * object when answered. The members the spec names around it are declared.
 * The wire's own helper, so answers declared there and here check alike.
 */
export const objectOf = engineObject;
