import { canonicalJson } from "../../canonical/index.js";
import { timeOf } from "../fields.js";
import { deriveOutcome } from "../receipt.js";
import { deriveSummary } from "../summary.js";
import { task, type VerifyContext } from "./context.js";

/** Check `receipt`: it names this action, this path, and lists exactly the bundle's objects in order. */
export function checkReceipt(ctx: VerifyContext): void {
  const { findings, receipt } = ctx;
  findings.run("receipt");
  const payload = receipt.body.payload;
  const where = { object_id: receipt.id };
  const listed = ctx.listedIds;
  if (payload.objects.length !== listed.length || payload.objects.some((id, i) => listed[i] !== id)) {
    const missing = payload.objects.filter((id) => !listed.includes(id));
    const extra = listed.filter((id) => !(payload.objects as string[]).includes(id));
    const detail =
      missing.length || extra.length
        ? `${missing.length} missing, ${extra.length} not listed`
        : "in another order";
    findings.error(
      "receipt",
      "RECEIPT_MISMATCH",
      `the bundle's objects differ from the receipt's manifest (${detail})`,
      where,
    );
  }
  const t = task(ctx);
  if (!t || !ctx.path) return;
  if (payload.protected_action_id !== t.body.payload.protected_action_id) {
    findings.error(
      "receipt",
      "RECEIPT_MISMATCH",
      "the receipt names another protected action than the TASK",
      where,
    );
  }
  const head = ctx.path[ctx.path.length - 1]!;
  if (timeOf(receipt.body.issued_at) < timeOf(head.body.issued_at)) {
    findings.error("receipt", "RECEIPT_MISMATCH", "the receipt is dated before its head step", where);
  }
}

/** Check `summary`: recomputed from the signed steps and compared member by member (canonically). */
export function checkSummary(ctx: VerifyContext): void {
  if (!ctx.path) return ctx.findings.skip("summary");
  ctx.findings.run("summary");
  if (canonicalJson(deriveSummary(ctx.path)) !== canonicalJson(ctx.receipt.body.payload.summary)) {
    ctx.findings.error("summary", "SUMMARY_MISMATCH", "the summary is not the one the signed steps give", {
      object_id: ctx.receipt.id,
    });
  }
}

/** Check `outcome`: kind and outcome follow from the head step (SPEC 3.1). */
export function checkOutcome(ctx: VerifyContext): void {
  if (!ctx.path) return ctx.findings.skip("outcome");
  ctx.findings.run("outcome");
  const derived = deriveOutcome(ctx.path);
  const { kind, outcome } = ctx.receipt.body.payload;
  if (!derived) {
    ctx.findings.error("outcome", "OUTCOME_MISMATCH", "the head step ends no receipt", {
      object_id: ctx.receipt.id,
    });
  } else if (derived.kind !== kind || derived.outcome !== outcome) {
    ctx.findings.error(
      "outcome",
      "OUTCOME_MISMATCH",
      `the receipt says ${kind}/${outcome}, the steps give ${derived.kind}/${derived.outcome}`,
      { object_id: ctx.receipt.id },
    );
  }
}
