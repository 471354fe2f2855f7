/**
 * `countersign policy validate|test|diff`: policy files checked offline, in CI, before they reach a
 * Cloud API or a cluster. Same validator, evaluator and diff as the Cloud API and the Gateway
 * (@countersign/protocol/policy); nothing is sent anywhere. A file is a policy document (JSON or
 * YAML) or a YAML file of countersign.dev Policy resources, whose saved examples `test` runs.
 */
import { readFileSync } from "node:fs";
import {
  compilePolicy,
  diffPolicies,
  examplesSource,
  PolicySourceError,
  policySources,
  runExamples,
  validateExamples,
  validatePolicy,
  type ExampleResult,
  type PolicyDiff,
  type PolicyIssue,
  type PolicySource,
} from "@countersign/protocol/policy";
import { usageError } from "../cloud/errors.js";
import { EXIT } from "../cloud/exit-codes.js";
import { onlyFlags } from "../command-line.js";
import { json, type CommandContext, type CommandOutput } from "./context.js";

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw usageError(`cannot read ${path} (${(err as { code?: string }).code ?? "error"})`);
  }
}

function sourcesOf(path: string): PolicySource[] {
  try {
    return policySources(readText(path));
  } catch (err) {
    if (err instanceof PolicySourceError) throw usageError(`${path} ${err.message}`);
    throw err;
  }
}

/** The one FILE (or the files) named after `policy SUB`. */
function files(ctx: CommandContext, count: number, usage: string): string[] {
  const named = ctx.line.words.slice(2);
  if (named.length !== count) throw usageError(usage);
  return named;
}

const issueLine = (i: PolicyIssue) => `${i.path || "(document)"}: ${i.message} (${i.code})`;

const output = (ctx: CommandContext, exitCode: number, data: unknown, human: string[]): CommandOutput => ({
  exitCode,
  stdout: json(ctx) ? `${JSON.stringify(data, null, 2)}\n` : `${human.join("\n")}\n`,
  stderr: "",
});

export async function policyValidate(ctx: CommandContext): Promise<CommandOutput> {
  onlyFlags(ctx.line, []);
  const [file] = files(ctx, 1, "give one policy file: countersign policy validate FILE");
  const lines: string[] = [];
  const policies = sourcesOf(file!).map((source) => {
    const result = validatePolicy(source.document);
    const examples = source.examples?.length ? validateExamples(source.examples) : undefined;
    const exampleIssues =
      examples && !examples.ok ? examples.issues.map((i) => ({ ...i, path: `examples.${i.path}` })) : [];
    const valid = result.ok && exampleIssues.length === 0;
    if (result.ok) {
      lines.push(
        `${valid ? "VALID" : "INVALID"}  ${source.name}: ${result.document.rules.length} rules, language revision ${result.revision}, ${result.digest}`,
      );
      for (const w of result.lint.warnings) lines.push(`  warning ${issueLine(w)}`);
    } else {
      lines.push(`INVALID  ${source.name}`);
      for (const i of result.issues) lines.push(`  ${issueLine(i)}`);
    }
    for (const i of exampleIssues) lines.push(`  ${issueLine(i)}`);
    return {
      name: source.name,
      valid,
      issues: [...(result.ok ? [] : result.issues), ...exampleIssues],
      ...(result.ok ? { revision: result.revision, digest: result.digest, lint: result.lint } : {}),
    };
  });
  const valid = policies.every((p) => p.valid);
  return output(ctx, valid ? EXIT.ok : EXIT.refused, { file, valid, policies }, lines);
}

/** `outcome by rule R` / `outcome by the default`, as the expectation and the result read. */
const decision = (d: { outcome: string; rule_id: string | null }) =>
  `${d.outcome} by ${d.rule_id === null ? "the default" : `rule ${d.rule_id}`}`;

function exampleLines(r: ExampleResult): string[] {
  const label = r.label ? ` (${r.label})` : "";
  const note = r.depends_on_arguments
    ? ["      note: an argument condition could change this decision for a real call"]
    : [];
  if (r.passed === null) return [`  SKIP  ${r.id}${label}: no expectation; ${decision(r.actual)}`];
  if (r.passed) return [`  PASS  ${r.id}${label}: ${decision(r.actual)}`];
  return [
    `  FAIL  ${r.id}${label}`,
    `      - expected: ${decision(r.expected)}`,
    `      + actual:   ${decision(r.actual)}`,
    ...note,
  ];
}

export async function policyTest(ctx: CommandContext): Promise<CommandOutput> {
  onlyFlags(ctx.line, ["examples"]);
  const [file] = files(ctx, 1, "give one policy file: countersign policy test FILE [--examples FILE]");
  const sources = sourcesOf(file!);
  const examplesFile = ctx.line.flags.get("examples");
  let shared: unknown[] | undefined;
  if (examplesFile !== undefined) {
    try {
      shared = examplesSource(readText(examplesFile));
    } catch (err) {
      if (err instanceof PolicySourceError) throw usageError(`${examplesFile} ${err.message}`);
      throw err;
    }
  }
  const lines: string[] = [];
  let failed = 0;
  let passed = 0;
  let ran = 0;
  const policies = sources.map((source) => {
    const examples = shared ?? source.examples ?? [];
    const result = validatePolicy(source.document);
    const checked = validateExamples(examples);
    if (!result.ok || !checked.ok) {
      failed++;
      lines.push(`${source.name}: cannot run its examples`);
      if (!result.ok) for (const i of result.issues) lines.push(`  INVALID  document ${issueLine(i)}`);
      if (!checked.ok) for (const i of checked.issues) lines.push(`  INVALID  examples.${issueLine(i)}`);
      return {
        name: source.name,
        ok: false,
        issues: [...(result.ok ? [] : result.issues), ...(checked.ok ? [] : checked.issues)],
      };
    }
    const report = runExamples(compilePolicy(result.document), checked.examples);
    ran += report.results.length;
    passed += report.passed;
    failed += report.failed;
    lines.push(
      `${source.name}: ${report.results.length} examples, ${report.passed} passed, ${report.failed} failed`,
    );
    for (const r of report.results) lines.push(...exampleLines(r));
    return { name: source.name, ok: report.failed === 0, digest: result.digest, ...report };
  });
  if (ran === 0 && failed === 0)
    throw usageError(
      `${file} carries no examples to run: give --examples FILE, or spec.examples in the Policy resource`,
    );
  lines.push(failed ? `FAILED: ${failed} failed, ${passed} passed` : `OK: ${passed} examples passed`);
  return output(
    ctx,
    failed ? EXIT.refused : EXIT.ok,
    { file, ok: failed === 0, passed, failed, policies },
    lines,
  );
}

function diffLines(d: PolicyDiff): string[] {
  if (d.identical) return [`identical (${d.from_digest})`];
  const lines = [`--- ${d.from_digest}`, `+++ ${d.to_digest}`];
  if (d.revision) lines.push(`~ language revision ${d.revision.from} -> ${d.revision.to}`);
  for (const m of d.default_changed) lines.push(`~ ${m} changed`);
  for (const r of d.removed) lines.push(`- rule ${r.rule_id} (${r.effect}) at ${r.index}`);
  for (const r of d.added) lines.push(`+ rule ${r.rule_id} (${r.effect}) at ${r.index}`);
  for (const c of d.changed) lines.push(`~ rule ${c.rule_id}: ${c.fields.join(", ")} changed`);
  for (const m of d.moved) lines.push(`~ rule ${m.rule_id} moved ${m.from_index} -> ${m.to_index}`);
  return lines;
}

export async function policyDiff(ctx: CommandContext): Promise<CommandOutput> {
  onlyFlags(ctx.line, []);
  const [a, b] = files(ctx, 2, "give two policy files: countersign policy diff A B");
  const documents = [a!, b!].map((path) => {
    const sources = sourcesOf(path);
    if (sources.length !== 1)
      throw usageError(`${path} holds ${sources.length} policies; diff compares one with one`);
    const result = validatePolicy(sources[0]!.document);
    if (!result.ok)
      throw usageError(`${path} is not a valid policy:\n  ${result.issues.map(issueLine).join("\n  ")}`);
    return result.document;
  });
  const d = diffPolicies(documents[0]!, documents[1]!);
  return output(ctx, d.identical ? EXIT.ok : EXIT.refused, d, diffLines(d));
}
