import pg from "pg";
import { createLogger } from "@countersign/core/server";
import { buildApiServer } from "../server.js";
import { cloudApiDocument } from "./route.js";

/**
 * A real api server built for reading its routes, not for serving: no database is needed
 * (the pool connects lazily and nothing queries it). The caller closes both.
 */
export function offlineApiServer() {
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
  return { app, pool };
}

/**
 * The Cloud API's OpenAPI document as committed (docs/openapi/cloud-api.json):
 * built from the real server's routes, pretty, with a final newline.
 */
export async function cloudApiDocumentText(): Promise<string> {
  const { app, pool } = offlineApiServer();
  try {
    await app.ready();
    return `${JSON.stringify(cloudApiDocument(app), null, 2)}\n`;
  } finally {
    await app.close();
    await pool.end();
  }
}
