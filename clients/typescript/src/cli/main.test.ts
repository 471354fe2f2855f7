import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { verificationResultSchema } from "@countersign/protocol/evidence";
import { runCountersign } from "../../../../test/fixtures/cli.js";

const repo = fileURLToPath(new URL("../../../../", import.meta.url));
const vectors = join(repo, "test/vectors/evidence");

/** The CLI as a user runs the binary, from its TypeScript source. */
const countersign = (...args: string[]) => runCountersign(args);

describe("countersign verify", () => {
  it("exits 0 and prints a human summary for a valid bundle", async () => {
    const run = await countersign("verify", join(vectors, "bundles/approved-execution.svcbundle"));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^VALID {2}approved-execution\.svcbundle/);
    expect(run.stdout).toContain("outcome    succeeded (execution receipt)");
    expect(run.stdout).toContain("5. RESULT");
    expect(run.stdout).toContain("TRUST_NOT_PINNED");
  });

  it("prints the verification as JSON with --json", async () => {
    const run = await countersign("verify", join(vectors, "bundles/cancelled.svcbundle"), "--json");
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as {
      bundle_sha256: string;
      bundle_size: number;
      verification: unknown;
    };
    expect(out.bundle_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(out.bundle_size).toBeGreaterThan(0);
    expect(verificationResultSchema.parse(out.verification).valid).toBe(true);
  });

  it("exits 1 and names the error for each tampered bundle", async () => {
    const cases: [string, string][] = [
      ["payload-byte", "OBJECT_ID_MISMATCH"],
      ["signature", "SIGNATURE_INVALID"],
      ["reordered-chain", "CHAIN_ORDER"],
      ["removed-delegation", "DELEGATION_MISSING"],
      ["expired-delegation", "DELEGATION_EXPIRED"],
      ["revoked-delegation", "DELEGATION_REVOKED"],
      ["equivocating-identity", "IDENTITY_EQUIVOCATION"],
      ["swapped-identity", "IDENTITY_INVALID"],
    ];
    const runs = await Promise.all(
      cases.map(([name]) => countersign("verify", join(vectors, `tampered/${name}.svcbundle`), "--json")),
    );
    runs.forEach((run, i) => {
      expect(run.code, cases[i]![0]).toBe(1);
      const out = JSON.parse(run.stdout) as { verification: { valid: boolean; errors: { code: string }[] } };
      expect(out.verification.valid).toBe(false);
      expect(out.verification.errors.map((e) => e.code)).toContain(cases[i]![1]);
    });
    const human = await countersign("verify", join(vectors, "tampered/equivocating-identity.svcbundle"));
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^INVALID/);
    expect(human.stdout).toContain("equivocated identities: kid_");
  }, 120_000); // eight CLI processes at once: slow on a loaded machine; time is never asserted

  it("exits 1 when the issuer is not the pinned one, 0 when it is", async () => {
    const keys = JSON.parse(readFileSync(join(vectors, "keys.json"), "utf8")) as Record<
      string,
      { kid: string }
    >;
    const file = join(vectors, "bundles/rejected.svcbundle");
    const [wrong, right] = await Promise.all([
      countersign("verify", file, "--trust-issuer", keys.outsider!.kid),
      countersign(
        "verify",
        file,
        "--trust-issuer",
        keys.gateway!.kid,
        "--trust-principal",
        keys.principal!.kid,
      ),
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain("ISSUER_UNTRUSTED");
    expect(right.code).toBe(0);
    expect(right.stdout).not.toContain("TRUST_NOT_PINNED");
  });

  it("exits 1 for JSON that is not a bundle, 2 for a missing or non-JSON file and for usage errors", async () => {
    const dir = mkdtempSync(join(tmpdir(), "countersign-cli-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, "not-json.svcbundle"), "this is not json");
    writeFileSync(join(dir, "empty-object.svcbundle"), "{}");
    const [notBundle, missing, notJson, noFile, unknown, help] = await Promise.all([
      countersign("verify", join(dir, "empty-object.svcbundle")),
      countersign("verify", join(dir, "missing.svcbundle")),
      countersign("verify", join(dir, "not-json.svcbundle")),
      countersign("verify"),
      countersign("verify", "x.svcbundle", "--colour"),
      countersign("--help"),
    ]);
    expect(notBundle.code).toBe(1);
    expect(notBundle.stdout).toContain("BUNDLE_MALFORMED");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cannot read");
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain("not JSON");
    expect(noFile.code).toBe(2);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option: --colour");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("verify FILE.svcbundle");
  });
});
