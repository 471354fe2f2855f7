import pg from "pg";
import { createLogger } from "@countersign/core/server";
import { buildApiServer } from "../server.js";
import { cloudApiDocument } from "./route.js";

/**
 * The Cloud API's OpenAPI document as committed (docs/openapi/cloud-api.json):
 * built from the real server's routes, pretty, with a final newline. No
 * database is needed: the pool connects lazily and nothing queries it.
 */
export async function cloudApiDocumentText(): Promise<string> {
  const pool = new pg.Pool({ connectionString: "postgres://nobody@127.0.0.1:1/none", max: 1 });
  const app = buildApiServer({
    pool,
    logger: createLogger("api", "silent"),
    cloud: {
      keyHashSecret: Buffer.alloc(32, 1),
      dashboardOrigin: "https://dashboard.example",
      defaultPlan: "enterprise",
      mailer: { describe: "nowhere", send: async () => {} },
      trustedProxyHops: 0,
    },
  });
  try {
    await app.ready();
    return `${JSON.stringify(cloudApiDocument(app), null, 2)}\n`;
  } finally {
    await app.close();
    await pool.end();
  }
}
