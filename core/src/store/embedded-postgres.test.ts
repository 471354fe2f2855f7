import { inject, expect, test } from "vitest";
import pg from "pg";

test("the shared test server is a real PostgreSQL 15+", async () => {
  const client = new pg.Client({ connectionString: inject("postgresUrl") });
  await client.connect();
  const { rows } = await client.query<{ v: string }>("select current_setting('server_version_num') as v");
  await client.end();
  expect(Number(rows[0]!.v)).toBeGreaterThanOrEqual(150000);
});
