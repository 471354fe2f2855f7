/**
 * `countersign policy validate|test|diff` as a real process, offline (no Cloud API, no network in
 * its environment): the Policy resource of config/samples/ exactly as committed, a plain document
 * with an examples file, failing examples with exit status 1 and a diff of expected and actual
 * outcome and rule, and files that are not policies with exit status 2.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { compilePolicy, parsePolicy } from "../../protocol/src/policy/index.js";
import { runCountersign, type CliRun as Run } from "../fixtures/cli.js";
import type { JsonBody } from "../fixtures/json.js";

const sample = fileURLToPath(new URL("../../config/samples/policy.yaml", import.meta.url));
let dir: string;

const cli = (...args: string[]): Promise<Run> => runCountersign(args, { PATH: process.env.PATH, HOME: dir });
const write = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : stringify(content));
  return path;
};
/** The committed sample resource, changed by `edit`. */
const sampleWith = (edit: (resource: JsonBody) => void) => {
  const resource = parse(readFileSync(sample, "utf8"));
  edit(resource);
  return resource;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "countersign-cli-policy-"));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("policy test", { timeout: 120_000 }, () => {
  it("runs the saved examples of the Policy resource in config/samples/ and passes", async () => {
    const r = await cli("policy", "test", sample);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("Policy payments-team/payments: 3 examples, 3 passed, 0 failed");
    expect(r.stdout).toMatch(/^ {2}PASS {2}large-payment: requires_approval by rule large-payments$/m);
    expect(r.stdout).toMatch(/^ {2}PASS {2}unknown-tool: denied by the default$/m);
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe("OK: 3 examples passed");

    const json = JSON.parse((await cli("policy", "test", sample, "--json")).stdout);
    expect(json).toMatchObject({ ok: true, passed: 3, failed: 0 });
    // The same outcomes the Gateway's evaluator gives for those calls.
    const policy = compilePolicy(parsePolicy(parse(readFileSync(sample, "utf8")).spec.document));
    for (const r of json.policies[0].results) {
      const example = parse(readFileSync(sample, "utf8")).spec.examples.find(
        (e: { id: string }) => e.id === r.id,
      );
      expect(
        policy.evaluate({
          tool: example.tool,
          action: example.action,
          amount: example.amount ?? null,
          currency: example.currency ?? null,
        }).rule_id,
      ).toBe(r.actual.rule_id);
    }
  });

  it("exits 1 on a failing example, with expected and actual outcome and rule as a diff", async () => {
    const file = write(
      "failing.yaml",
      sampleWith((p) => {
        p.spec.examples[0].expectedRule = "refunds";
        p.spec.examples[1].expectedOutcome = "denied";
      }),
    );
    const r = await cli("policy", "test", file);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain(
      [
        "  FAIL  small-payment (A small payment goes through)",
        "      - expected: allowed by rule refunds",
        "      + actual:   allowed by rule payments",
        "  FAIL  large-payment",
        "      - expected: denied by rule large-payments",
        "      + actual:   requires_approval by rule large-payments",
        "  PASS  unknown-tool: denied by the default",
        "FAILED: 2 failed, 1 passed",
      ].join("\n"),
    );
    const json = await cli("policy", "test", file, "--json");
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ ok: false, passed: 1, failed: 2 });
    expect(report.policies[0].results[0]).toMatchObject({
      id: "small-payment",
      passed: false,
      expected: { outcome: "allowed", rule_id: "refunds" },
      actual: { outcome: "allowed", rule_id: "payments" },
    });
  });

  it("runs a plain document with --examples FILE in the Cloud API's member names", async () => {
    const document = write(
      "document.json",
      JSON.stringify(parse(readFileSync(sample, "utf8")).spec.document),
    );
    const examples = write("examples.yaml", [
      {
        id: "refund",
        action: "refunds.issue",
        tool: "refunds.issue",
        expected_outcome: "allowed",
        expected_rule: "refunds",
      },
      {
        id: "big",
        action: "payments.send",
        tool: "payments.send",
        amount: "100.01",
        currency: "USD",
        expected_outcome: "requires_approval",
        expected_rule: "large-payments",
      },
    ]);
    const passing = await cli("policy", "test", document, "--examples", examples);
    expect(passing.code, passing.stdout + passing.stderr).toBe(0);
    expect(passing.stdout).toContain("document: 2 examples, 2 passed, 0 failed");

    const wrong = write(
      "wrong-examples.json",
      JSON.stringify({
        examples: [
          {
            id: "edge",
            action: "payments.send",
            tool: "payments.send",
            amount: "100.00",
            currency: "USD",
            expected_outcome: "requires_approval",
            expected_rule: "large-payments",
          },
        ],
      }),
    );
    const failing = await cli("policy", "test", document, "--examples", wrong);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain("+ actual:   allowed by rule payments");
  });

  it("tests every Policy of a multi-document file and skips its other resources", async () => {
    const other = sampleWith((p) => {
      p.metadata.name = "refunds";
      p.spec.examples = [
        { id: "r", action: "refunds.issue", tool: "refunds.issue", expectedOutcome: "denied" },
      ];
    });
    const file = write(
      "several.yaml",
      [
        stringify({
          apiVersion: "countersign.dev/v1alpha1",
          kind: "Agent",
          metadata: { name: "a" },
          spec: {},
        }),
        readFileSync(sample, "utf8"),
        stringify(other),
      ].join("---\n"),
    );
    const r = await cli("policy", "test", file);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("Policy payments-team/payments: 3 examples, 3 passed, 0 failed");
    expect(r.stdout).toContain("Policy payments-team/refunds: 1 examples, 0 passed, 1 failed");
    expect(r.stdout).toContain("- expected: denied by the default");
  });

  it("exits 1 when the document is invalid, 2 for a file that is not a policy or has no examples", async () => {
    const invalid = write(
      "invalid.yaml",
      sampleWith((p) => (p.spec.document.rules[0].effect = "maybe")),
    );
    const r = await cli("policy", "test", invalid);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/INVALID {2}document rules\.0\.effect: /);

    expect((await cli("policy", "test", join(dir, "missing.yaml"))).code).toBe(2);
    const broken = await cli("policy", "test", write("broken.yaml", "rules: [\n  - id: x\n"));
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/not valid YAML or JSON/);
    const none = await cli(
      "policy",
      "test",
      write("none.yaml", stringify({ apiVersion: "v1", kind: "ConfigMap" })),
    );
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("holds no policy document");
    const noExamples = await cli(
      "policy",
      "test",
      write("bare.json", JSON.stringify({ default_effect: "deny", rules: [] })),
    );
    expect(noExamples.code).toBe(2);
    expect(noExamples.stderr).toContain("carries no examples");
    expect((await cli("policy", "test")).code).toBe(2);
  });
});

describe("policy validate", { timeout: 120_000 }, () => {
  it("exit 0 with the digest for the sample, 1 with every issue's path and code for an invalid one", async () => {
    const ok = await cli("policy", "validate", sample);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(
      /^VALID {2}Policy payments-team\/payments: 3 rules, language revision 1, sha256:[0-9a-f]{64}$/m,
    );

    const bad = write(
      "bad.yaml",
      sampleWith((p) => {
        p.spec.document.rules[1].id = "large-payments";
        p.spec.examples[0].currency = "dollars";
      }),
    );
    const r = await cli("policy", "validate", bad, "--json");
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.valid).toBe(false);
    const codes = report.policies[0].issues.map((i: { path: string; code: string }) => i.path);
    expect(codes).toEqual(expect.arrayContaining(["rules.1.id", "examples.0.currency"]));
  });
});

describe("policy diff", { timeout: 120_000 }, () => {
  it("exit 0 when identical (whatever the formatting), 1 with rule-by-rule changes", async () => {
    const reformatted = write(
      "same.json",
      JSON.stringify(parse(readFileSync(sample, "utf8")).spec.document, null, 4),
    );
    const same = await cli("policy", "diff", sample, reformatted);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toMatch(/^identical \(sha256:/);

    const changed = write(
      "changed.yaml",
      sampleWith((p) => {
        p.spec.document.rules[1].conditions[0].threshold = "50.00";
        p.spec.document.rules.splice(2, 1);
        p.spec.document.rules.push({ id: "mail", effect: "deny", tools: ["mail.*"] });
      }),
    );
    const r = await cli("policy", "diff", sample, changed);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("- rule refunds (allow) at 2");
    expect(r.stdout).toContain("+ rule mail (deny) at 2");
    expect(r.stdout).toContain("~ rule payments: conditions changed");
    expect((await cli("policy", "diff", sample)).code).toBe(2);
  });

  it("help of the policy commands names their exit statuses", async () => {
    const help = await cli("policy", "--help");
    expect(help.code).toBe(0);
    for (const word of [
      "policy validate FILE",
      "policy test FILE [--examples FILE]",
      "policy diff A B",
      "Exit status: 0",
    ])
      expect(help.stdout).toContain(word);
  });
});
