import type { Queryable } from "@countersign/core/store";

export interface GatewayIdentityRow {
  kid: string;
  public_key: string;
  document: unknown;
  created_at: Date;
}

/** The Gateway's current identity: the newest active one, if any was registered. */
export async function currentGatewayIdentity(db: Queryable): Promise<GatewayIdentityRow | undefined> {
  const { rows } = await db.query<GatewayIdentityRow>(
    "select kid, public_key, document, created_at from identities where kind = 'gateway' and status = 'active' order by created_at desc limit 1",
  );
  return rows[0];
}
