/**
 * `countersign receipts get|download`: a receipt's detail, and its bundle
 * saved only after its SHA-256 matches the `x-service-bundle-sha256` the
 * Cloud API vouched for (verify it offline with `countersign verify`).
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { receiptAnswerSchema } from "@countersign/protocol/wire";
import { cloudDownload, cloudRequest } from "../cloud/client.js";
import { CliError } from "../cloud/errors.js";
import { EXIT } from "../cloud/exit-codes.js";
import { onlyFlags } from "../command-line.js";
import { creds, done, idArgument, organization, type CommandContext, type CommandOutput } from "./context.js";

export async function receiptsGet(ctx: CommandContext): Promise<CommandOutput> {
  onlyFlags(ctx.line, ["org", "url"]);
  const c = creds(ctx);
  const { receipt } = await cloudRequest(
    c,
    "GET",
    `/orgs/${encodeURIComponent(organization(ctx, c))}/receipts/${idArgument(ctx, "receipt")}`,
    receiptAnswerSchema,
  );
  const human = [
    `${receipt.id}  ${receipt.kind} receipt, outcome ${receipt.outcome}`,
    `action     ${receipt.protected_action_id}`,
    `object     ${receipt.receipt_object_id}`,
    `sha256     ${receipt.bundle_sha256}`,
    `verified   ${receipt.verification ? (receipt.verification.valid ? "valid" : "INVALID") : "-"}`,
  ].join("\n");
  return done(ctx, { receipt }, human);
}

export async function receiptsDownload(ctx: CommandContext): Promise<CommandOutput> {
  onlyFlags(ctx.line, ["org", "url", "out"]);
  const c = creds(ctx);
  const answer = await cloudDownload(
    c,
    `/orgs/${encodeURIComponent(organization(ctx, c))}/receipts/${idArgument(ctx, "receipt")}/bundle`,
  );
  const vouched = answer.headers.get("x-service-bundle-sha256");
  const actual = `sha256:${createHash("sha256").update(answer.bytes).digest("hex")}`;
  if (!vouched || (vouched !== actual && vouched !== actual.slice("sha256:".length))) {
    throw new CliError(
      "the downloaded bundle does not match the SHA-256 the Cloud API sent; nothing was saved",
      EXIT.unavailable,
    );
  }
  const name =
    /filename="([^"/\\]+)"/.exec(answer.headers.get("content-disposition") ?? "")?.[1] ?? "receipt.svcbundle";
  const out = ctx.line.flags.get("out") ?? name;
  try {
    writeFileSync(out, answer.bytes, { flag: "wx" });
  } catch (err) {
    throw new CliError(
      `cannot write ${out} (${(err as { code?: string }).code ?? "error"}; an existing file is never overwritten)`,
      EXIT.usage,
    );
  }
  return done(
    ctx,
    { file: out, bundle_sha256: vouched, bytes: answer.bytes.length },
    `Saved ${out} (${answer.bytes.length} bytes, ${vouched}).`,
  );
}
