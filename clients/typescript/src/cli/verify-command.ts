import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { bundleFacts, verifyBundle, type Kid } from "@countersign/protocol/evidence";
import { renderHuman, type BundleOverview } from "./render.js";

export interface CommandOutput {
  exitCode: 0 | 1 | 2;
  stdout: string;
  stderr: string;
}

/**
 * `countersign verify FILE`: reads the file, verifies it offline and reports.
 * Exit 0 only when valid, 1 when the bundle was read but is not valid, 2 when
 * the file cannot be read or is not JSON at all.
 */
export async function verifyCommand(options: {
  file: string;
  json: boolean;
  trustIssuers: string[];
  trustPrincipals: string[];
}): Promise<CommandOutput> {
  let bytes: Buffer;
  try {
    bytes = await readFile(options.file);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? "unreadable";
    return { exitCode: 2, stdout: "", stderr: `countersign: cannot read ${options.file} (${reason})\n` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    return { exitCode: 2, stdout: "", stderr: `countersign: ${options.file} is not JSON, so not a bundle\n` };
  }
  const trust =
    options.trustIssuers.length > 0 || options.trustPrincipals.length > 0
      ? {
          ...(options.trustIssuers.length > 0 ? { issuers: options.trustIssuers as Kid[] } : {}),
          ...(options.trustPrincipals.length > 0 ? { principals: options.trustPrincipals as Kid[] } : {}),
        }
      : undefined;
  const result = verifyBundle(parsed, trust ? { trust } : {});
  const facts = bundleFacts(new Uint8Array(bytes));
  const exitCode = result.valid ? 0 : 1;
  if (options.json) {
    return {
      exitCode,
      stdout: `${JSON.stringify({ ...facts, verification: result }, null, 2)}\n`,
      stderr: "",
    };
  }
  return {
    exitCode,
    stdout: renderHuman(overviewOf(basename(options.file), facts, parsed), result),
    stderr: "",
  };
}

// Display only: read defensively from whatever was in the file; validity comes from the verifier alone.
function overviewOf(
  file: string,
  facts: { bundle_sha256: string; bundle_size: number },
  bundle: unknown,
): BundleOverview {
  const get = (v: unknown, ...path: string[]): unknown =>
    path.reduce<unknown>(
      (o, k) => (o !== null && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined),
      v,
    );
  const text = (v: unknown) => (typeof v === "string" ? v : undefined);
  const overview: BundleOverview = { file, ...facts, steps: [] };
  const receipt = get(bundle, "receipt");
  const fields: [keyof BundleOverview, unknown][] = [
    ["receipt_object_id", get(receipt, "id")],
    ["kind", get(receipt, "body", "payload", "kind")],
    ["outcome", get(receipt, "body", "payload", "outcome")],
    ["issuer_kid", get(receipt, "body", "actor")],
    ["issued_at", get(receipt, "body", "issued_at")],
    ["protected_action_id", get(receipt, "body", "payload", "protected_action_id")],
  ];
  for (const [key, value] of fields)
    if (text(value)) (overview as unknown as Record<string, string>)[key] = text(value)!;
  const steps = get(receipt, "body", "payload", "summary", "steps");
  if (Array.isArray(steps)) {
    for (const s of steps) {
      const [type, id, actor] = [text(get(s, "type")), text(get(s, "id")), text(get(s, "actor"))];
      if (type && id && actor)
        overview.steps.push({
          type,
          id,
          actor,
          ...(text(get(s, "on_behalf_of")) ? { on_behalf_of: text(get(s, "on_behalf_of"))! } : {}),
        });
    }
  }
  const objects = get(bundle, "objects");
  const task = Array.isArray(objects) ? objects.find((o) => get(o, "body", "type") === "TASK") : undefined;
  const tool = text(get(task, "body", "payload", "tool"));
  const action = text(get(task, "body", "payload", "action"));
  if (tool) overview.tool = tool;
  if (action) overview.action = action;
  return overview;
}
