import { describe, expect, it } from "vitest";
import { MAX_STATEMENTS, preparedStatements, statement } from "./statement.js";

describe("named prepared statements", () => {
  it("gives node-postgres the name, the text and the values", () => {
    const s = statement("statement_test_one", "select $1::int as n");
    expect(s.with([1])).toEqual({ name: "statement_test_one", text: "select $1::int as n", values: [1] });
    // Declaring the same name with the same text again (a module loaded twice) is the same statement.
    expect(statement("statement_test_one", "select $1::int as n").name).toBe("statement_test_one");
  });

  it("refuses one name for two texts", () => {
    statement("statement_test_two", "select 1");
    expect(() => statement("statement_test_two", "select 2")).toThrow(/different texts/);
    expect(preparedStatements().get("statement_test_two")).toBe("select 1");
  });

  it("refuses more than the cap of distinct statements", () => {
    for (let i = preparedStatements().size; i < MAX_STATEMENTS; i++)
      statement(`statement_test_fill_${i}`, `select ${i}`);
    expect(() => statement("statement_test_too_many", "select 'too many'")).toThrow(/more than/);
  });
});
