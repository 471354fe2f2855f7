/**
 * SPEC 8.1: at most 10 security notices per recipient address per hour; a request over the
 * budget gets its normal answer, but no more notice is sent. Through the real Cloud API and a real
 * SMTP server: ten password changes send ten "Your password was changed" notices; the eleventh
 * notice (an attempt to sign up with the address) is not sent, while the address's other budgets
 * (a reset link) and another person's notices are untouched. The log names neither address.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { randomIp, startCloudApi, type CloudApi } from "../../../test/fixtures/cloud-api.js";

let db: TestDatabase;
let api: CloudApi;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startCloudApi(db);
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

const notices = (address: string) =>
  api.smtp
    .to(address)
    .filter((m) =>
      ["Your password was changed", "Someone tried to sign up with your address"].includes(m.subject),
    );

describe("the security notice budget per recipient", () => {
  it("sends 10 notices an hour to one address; the 11th request is answered as usual and sends nothing", async () => {
    const b = api.browser();
    const { email, password } = await b.signUpAndIn(api.smtp);
    let current = password;
    for (let i = 1; i <= 10; i++) {
      const next = `${password} ${i}`;
      const res = await b.post("/auth/password", { current_password: current, new_password: next });
      expect(res.status).toBe(204);
      current = next;
      expect(notices(email)).toHaveLength(i);
    }

    // An 11th notice: someone tries to sign up with the address. The answer does not change...
    const signup = await api
      .browser({ ip: randomIp() })
      .post("/auth/signup", { email, password: "another long password" });
    expect(signup.status).toBe(202);
    // ...but no notice is sent.
    expect(notices(email)).toHaveLength(10);

    // The address's other budgets are its own: a reset link still goes out.
    const before = api.smtp.to(email).length;
    expect((await api.browser({ ip: randomIp() }).post("/auth/password-reset", { email })).status).toBe(202);
    expect(api.smtp.to(email)).toHaveLength(before + 1);
    expect(api.smtp.to(email).at(-1)!.subject).toBe("Reset your password");

    // Another person's notices are not slowed by this one's budget.
    const other = api.browser();
    const them = await other.signUpAndIn(api.smtp);
    expect(
      (
        await other.post("/auth/password", {
          current_password: them.password,
          new_password: `${them.password}!`,
        })
      ).status,
    ).toBe(204);
    expect(notices(them.email)).toHaveLength(1);

    // What was logged about the spent budget names no address.
    const budgetLines = api.logs.filter((l) => l.includes("budget spent"));
    expect(budgetLines.length).toBeGreaterThan(0);
    for (const line of budgetLines) expect(line).not.toContain(email);
  });
});
