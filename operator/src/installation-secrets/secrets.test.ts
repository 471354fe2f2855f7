import { describe, expect, it } from "vitest";
import { missingValues } from "./secrets.js";

const database = {
  name: "countersign-database",
  random: [],
  alphanumeric: ["POSTGRES_PASSWORD"],
  derived: { DATABASE_URL: "postgres://countersign:{POSTGRES_PASSWORD}@db.ns.svc:5432/countersign" },
};

describe("missingValues", () => {
  it("makes every key of an absent Secret: 32 random bytes, 32 letters and digits, and derived keys from them", () => {
    const made = missingValues({ name: "s", random: ["A", "B"], alphanumeric: [], derived: {} }, {});
    expect(Object.keys(made)).toEqual(["A", "B"]);
    expect(Buffer.from(made.A!, "base64url")).toHaveLength(32);
    expect(made.A).not.toBe(made.B);
    const db = missingValues(database, {});
    expect(db.POSTGRES_PASSWORD).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(db.DATABASE_URL).toBe(`postgres://countersign:${db.POSTGRES_PASSWORD}@db.ns.svc:5432/countersign`);
  });

  it("never changes a key that is present, and derives from the present value", () => {
    expect(
      missingValues({ name: "s", random: ["A", "B"], alphanumeric: [], derived: {} }, { A: "kept" }),
    ).toEqual({ B: expect.any(String) });
    expect(missingValues(database, { POSTGRES_PASSWORD: "old" })).toEqual({
      DATABASE_URL: "postgres://countersign:old@db.ns.svc:5432/countersign",
    });
    expect(missingValues(database, { POSTGRES_PASSWORD: "old", DATABASE_URL: "x" })).toEqual({});
  });

  it("refuses a derived key naming a key the Secret does not have", () => {
    expect(() =>
      missingValues({ name: "s", random: [], alphanumeric: [], derived: { URL: "{NOPE}" } }, {}),
    ).toThrow("URL names NOPE");
  });
});
