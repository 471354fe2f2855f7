import canonicalize from "canonicalize";
import { policyDigest } from "../digest.js";
import { languageRevision, type Effect, type PolicyDocument, type Rule } from "../document/schema.js";

/**
 * What changed between two versions (GET .../diff), rule by rule: rules are
 * matched by id; a rule whose members differ is `changed` with the member
 * names; rules kept but in a different relative order are `moved` (order
 * decides among rules of one effect, so a move can change decisions).
 */
export interface RuleRef {
  rule_id: string;
  index: number;
  effect: Effect;
}

export interface PolicyDiff {
  from_digest: string;
  to_digest: string;
  identical: boolean;
  revision: { from: 1 | 2; to: 1 | 2 } | null;
  /** Members of the default (effect, approvers, lifetime) that changed. */
  default_changed: string[];
  added: RuleRef[];
  removed: RuleRef[];
  changed: { rule_id: string; from_index: number; to_index: number; fields: string[] }[];
  moved: { rule_id: string; from_index: number; to_index: number }[];
}

const same = (a: unknown, b: unknown) => canonicalize(a ?? null) === canonicalize(b ?? null);
const ruleMembers = [
  "effect",
  "tools",
  "conditions",
  "approvers",
  "approval_ttl_seconds",
  "description",
  "guard",
] as const;

/** Ids of the longest common subsequence: the rules that kept their relative order. */
function keptInOrder(a: readonly string[], b: readonly string[]): Set<string> {
  const dp = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      dp[i]![j] = a[i] === b[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
    }
  }
  const kept = new Set<string>();
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      kept.add(a[i]!);
      i++;
      j++;
    } else if (dp[i + 1]![j]! >= dp[i]![j + 1]!) i++;
    else j++;
  }
  return kept;
}

export function diffPolicies(from: PolicyDocument, to: PolicyDocument): PolicyDiff {
  const index = (rules: readonly Rule[]) => new Map(rules.map((r, i) => [r.id, { r, i }]));
  const a = index(from.rules);
  const b = index(to.rules);
  const ref = ({ r, i }: { r: Rule; i: number }): RuleRef => ({ rule_id: r.id, index: i, effect: r.effect });
  const common = from.rules.filter((r) => b.has(r.id)).map((r) => r.id);
  const commonTo = to.rules.filter((r) => a.has(r.id)).map((r) => r.id);
  const kept = keptInOrder(common, commonTo);
  const fromRev = languageRevision(from);
  const toRev = languageRevision(to);
  const defaults: [string, unknown, unknown][] = [
    ["default_effect", from.default_effect ?? "deny", to.default_effect ?? "deny"],
    ["default_approvers", from.default_approvers, to.default_approvers],
    ["default_approval_ttl_seconds", from.default_approval_ttl_seconds, to.default_approval_ttl_seconds],
  ];
  const fromDigest = policyDigest(from);
  const toDigest = policyDigest(to);
  return {
    from_digest: fromDigest,
    to_digest: toDigest,
    identical: fromDigest === toDigest,
    revision: fromRev === toRev ? null : { from: fromRev, to: toRev },
    default_changed: defaults.filter(([, x, y]) => !same(x, y)).map(([k]) => k),
    added: [...b.values()].filter(({ r }) => !a.has(r.id)).map(ref),
    removed: [...a.values()].filter(({ r }) => !b.has(r.id)).map(ref),
    changed: common.flatMap((id) => {
      const x = a.get(id)!;
      const y = b.get(id)!;
      const fields = ruleMembers.filter((m) => !same(x.r[m], y.r[m]));
      return fields.length ? [{ rule_id: id, from_index: x.i, to_index: y.i, fields }] : [];
    }),
    moved: common
      .filter((id) => !kept.has(id))
      .map((id) => ({ rule_id: id, from_index: a.get(id)!.i, to_index: b.get(id)!.i })),
  };
}
