import type { QueryResult } from "pg";
import type { Queryable } from "../store/queryable.js";
import { statement } from "../store/statement.js";

const DOCUMENT = statement("policy_document", "select document from policy_versions where id = $1");

/** A policy version's stored document (policy-cache.ts compiles it once per process). */
export function policyDocument(
  db: Queryable,
  versionId: string,
): Promise<QueryResult<{ document: unknown }>> {
  return db.query<{ document: unknown }>(DOCUMENT.with([versionId]));
}
