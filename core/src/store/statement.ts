import type { QueryConfig } from "pg";

/**
 * A named prepared statement for the hot paths. PostgreSQL parses and plans
 * an unnamed statement on every call (about half of its CPU per decision
 * when measured); a named one is prepared once per connection and then only
 * bound and executed. Each name stands for exactly one text, and the number
 * of names is capped: every connection keeps a plan per name, so texts built
 * at run time must never become statements.
 */
export interface Statement {
  readonly name: string;
  readonly text: string;
  /** The query config for node-postgres: `db.query(STATEMENT.with([...]))`. */
  with(values: unknown[]): QueryConfig;
}

/** More distinct prepared texts than this is a programming error (a text built at run time). */
export const MAX_STATEMENTS = 64;

const registry = new Map<string, string>();

export function statement(name: string, text: string): Statement {
  const known = registry.get(name);
  if (known !== undefined && known !== text)
    throw new Error(`prepared statement "${name}" is declared twice with different texts`);
  if (known === undefined) {
    if (registry.size >= MAX_STATEMENTS)
      throw new Error(`more than ${MAX_STATEMENTS} prepared statements: "${name}" is one too many`);
    registry.set(name, text);
  }
  return { name, text, with: (values) => ({ name, text, values }) };
}

/** The prepared statements declared so far (name → text), for tests that check the hot path. */
export function preparedStatements(): ReadonlyMap<string, string> {
  return registry;
}
