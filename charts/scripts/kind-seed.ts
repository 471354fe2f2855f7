/**
 * For `make kind-e2e`: writes one organization ready for decisions (principal, agent, delegation,
 * decision-only tool, active policy allowing small refunds, gateway key) into the cluster's
 * database through a port-forward, the key made with the installation's key hash secret, and
 * prints what one /v1/authorize call needs as JSON. The same fixture the Gateway tests use.
 * Reads DATABASE_URL and COUNTERSIGN_KEY_HASH_SECRET from the environment.
 */
import { createPool } from "../../core/src/store/index.js";
import { createAuthorizationWorld } from "../../test/fixtures/authorization.js";

const databaseUrl = process.env.DATABASE_URL;
const keyHashSecret = process.env.COUNTERSIGN_KEY_HASH_SECRET;
if (!databaseUrl || !keyHashSecret) {
  process.stderr.write("kind-seed: DATABASE_URL and COUNTERSIGN_KEY_HASH_SECRET are required\n");
  process.exit(2);
}
const pool = createPool(databaseUrl, { applicationName: "countersign-kind-e2e" });
try {
  const world = await createAuthorizationWorld(pool, Buffer.from(keyHashSecret, "base64url"));
  process.stdout.write(
    `${JSON.stringify({ gateway_key: world.key, tool: world.tool, arguments: { order: "kind-e2e-1", amount: 50 } })}\n`,
  );
} finally {
  await pool.end();
}
