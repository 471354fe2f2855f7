import type pg from "pg";

/** A pool or a client inside a transaction: repository functions accept either. */
export type Queryable = Pick<pg.Pool | pg.PoolClient, "query">;
