import type { VerificationResult } from "@countersign/protocol/evidence";

/** What the human summary shows of the bundle, read from it after verification. */
export interface BundleOverview {
  file: string;
  bundle_sha256: string;
  bundle_size: number;
  receipt_object_id?: string;
  kind?: string;
  outcome?: string;
  issuer_kid?: string;
  issued_at?: string;
  protected_action_id?: string;
  tool?: string;
  action?: string;
  steps: { type: string; id: string; actor: string; on_behalf_of?: string }[];
}

const short = (id: string) => (id.length > 20 ? `${id.slice(0, 14)}…${id.slice(-6)}` : id);

export function renderHuman(overview: BundleOverview, result: VerificationResult): string {
  const lines: string[] = [];
  lines.push(`${result.valid ? "VALID" : "INVALID"}  ${overview.file}`);
  lines.push(`  bundle     ${overview.bundle_sha256} (${overview.bundle_size} bytes)`);
  if (overview.receipt_object_id) {
    lines.push(`  receipt    ${overview.receipt_object_id}`);
    lines.push(`  outcome    ${overview.outcome ?? "?"} (${overview.kind ?? "?"} receipt)`);
    lines.push(`  issuer     ${overview.issuer_kid ?? "?"} at ${overview.issued_at ?? "?"}`);
  }
  if (overview.protected_action_id)
    lines.push(
      `  action     ${overview.protected_action_id}: ${overview.tool ?? "?"} / ${overview.action ?? "?"}`,
    );
  if (overview.steps.length > 0) {
    lines.push("  steps");
    overview.steps.forEach((s, i) => {
      const behalf = s.on_behalf_of ? ` for ${short(s.on_behalf_of)}` : "";
      lines.push(`    ${i + 1}. ${s.type.padEnd(12)} ${short(s.id)} by ${short(s.actor)}${behalf}`);
    });
  }
  lines.push(
    `  checks     ${result.checks.map((c) => `${c.name} ${c.passed ? "ok" : "FAILED"}`).join(", ")}`,
  );
  if (result.equivocated_identities.length > 0)
    lines.push(`  equivocated identities: ${result.equivocated_identities.join(", ")}`);
  const list = (
    title: string,
    items: { code: string; message: string; object_id?: string; kid?: string }[],
  ) => {
    if (items.length === 0) return;
    lines.push(`  ${title}`);
    for (const e of items) {
      const where = e.object_id ? ` [${short(e.object_id)}]` : e.kid ? ` [${short(e.kid)}]` : "";
      lines.push(`    - ${e.code}: ${e.message}${where}`);
    }
  };
  list("errors", result.errors);
  list("warnings", result.warnings);
  if (result.notes.length > 0) {
    lines.push("  notes");
    for (const n of result.notes) lines.push(`    - ${n}`);
  }
  lines.push(`  verified at ${result.verified_at}`);
  return `${lines.join("\n")}\n`;
}
