import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres } from "@countersign/core/store";
import { ensureDatabase } from "./database-store.js";

export interface LocalDatabase {
  url: string;
  /** Human description for the start banner (never a password). */
  description: string;
  stop(): Promise<void>;
}

const DATABASE = "countersign";

/** The given PostgreSQL, or an embedded one, ours alone, whose data survives restarts. */
export async function openDatabase(opts: {
  databaseUrl?: string;
  dataDir: string;
  port: number;
  log?: (line: string) => void;
}): Promise<LocalDatabase> {
  if (opts.databaseUrl) {
    const u = new URL(opts.databaseUrl);
    return {
      url: opts.databaseUrl,
      description: `PostgreSQL at ${u.hostname}:${u.port || 5432}${u.pathname}`,
      stop: async () => {},
    };
  }
  const dataDir = path.resolve(opts.dataDir, "postgres");
  // It stops a server an earlier, killed run left in dataDir, and refuses a port another program holds.
  const server = await startEmbeddedPostgres({
    dataDir,
    log: opts.log,
    ...(opts.port ? { port: opts.port } : {}),
  });
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  try {
    await ensureDatabase(admin, DATABASE);
  } finally {
    await admin.end();
  }
  const url = new URL(server.url);
  url.pathname = `/${DATABASE}`;
  return {
    url: url.toString(),
    description: `embedded PostgreSQL in ${dataDir} (${url})`,
    stop: server.stop,
  };
}
