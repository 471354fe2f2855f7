/**
 * For `make kind-e2e`: seeds the `make run` demo organization (owner, agent, decision-only tool,
 * active policy, gateway key) into the cluster's database through a port-forward, with the
 * installation's key hash secret, and prints what one /v1/authorize call needs as JSON.
 * Reads DATABASE_URL and COUNTERSIGN_KEY_HASH_SECRET from the environment.
 */
import { createPool } from "@countersign/core/store";
import { seedDemo } from "../../local/src/demo/seed.js";

const databaseUrl = process.env.DATABASE_URL;
const keyHashSecret = process.env.COUNTERSIGN_KEY_HASH_SECRET;
if (!databaseUrl || !keyHashSecret) {
  process.stderr.write("kind-seed: DATABASE_URL and COUNTERSIGN_KEY_HASH_SECRET are required\n");
  process.exit(2);
}
const pool = createPool(databaseUrl, { applicationName: "countersign-kind-e2e" });
try {
  const demo = await seedDemo(pool, Buffer.from(keyHashSecret, "base64url"));
  process.stdout.write(`${JSON.stringify({ gateway_key: demo.gateway_key, tool: demo.decision_only_tool, arguments: demo.allowed_arguments })}\n`);
} finally {
  await pool.end();
}
