import type { Queryable } from "@countersign/core/store";

/**
 * The session advisory locks that hold discovery slots (discovery-slots.ts). Both run on the one
 * pooled connection held for the discovery: a session lock belongs to its connection.
 */
export async function tryAdvisoryLock(
  connection: Queryable,
  namespace: number,
  key: string,
): Promise<boolean> {
  const { rows } = await connection.query<{ ok: boolean }>(
    "select pg_try_advisory_lock($1, hashtext($2)) as ok",
    [namespace, key],
  );
  return rows[0]!.ok;
}

export async function advisoryUnlock(connection: Queryable, namespace: number, key: string): Promise<void> {
  await connection.query("select pg_advisory_unlock($1, hashtext($2))", [namespace, key]);
}
