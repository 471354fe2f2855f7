export { createPool, inTransaction, type Pool, type PoolClient, type PoolOptions } from "./pool.js";
export {
  migrate,
  loadMigrations,
  defaultMigrationsDir,
  type Migration,
  type MigrateResult,
} from "./migrate.js";
export { isDatabaseUnavailable } from "./unavailable.js";
export {
  startEmbeddedPostgres,
  freePort,
  type EmbeddedPostgres,
  type EmbeddedPostgresOptions,
} from "./embedded-postgres.js";
export { databaseReadiness } from "./readiness.js";
export { type Queryable } from "./queryable.js";
export { NotificationHub } from "./notifications.js";
export { statement, preparedStatements, MAX_STATEMENTS, type Statement } from "./statement.js";
export { newRowId } from "./row-id.js";
