import type { AmountMapping, Tool } from "@countersign/protocol/wire";
import { DashboardError } from "../../api/errors.js";
import type { ToolPatch as Body } from "../../api/tools.js";
import { Field, field } from "../../components/ActionForm.js";

/** The fields of a tool: exposed name, upstream tool, action, input schema, amount mapping. */
export function ToolFields({ tool, upstream }: { tool?: Tool; upstream?: string }) {
  const mapping = tool?.amount_mapping ?? null;
  return (
    <>
      <Field
        label="Exposed name (what the agent calls)"
        name="exposed_name"
        defaultValue={tool?.exposed_name}
      />
      <Field
        label="Upstream tool (empty: the exposed name)"
        name="upstream_name"
        required={false}
        defaultValue={tool?.upstream_name ?? upstream}
      />
      <Field
        label="Action (what policies decide on, e.g. payments.refund)"
        name="action"
        defaultValue={tool?.action}
      />
      <Field label="Description" name="description" required={false} defaultValue={tool?.description ?? ""} />
      <label>
        Input schema (JSON; empty: read from the MCP server, or any object for an integration)
        <textarea
          name="input_schema"
          rows={6}
          defaultValue={tool ? JSON.stringify(tool.input_schema, null, 2) : ""}
        />
      </label>
      <fieldset>
        <legend>Amount mapping (optional)</legend>
        <Field
          label="Amount path (e.g. amount or $.payment.amount)"
          name="amount_path"
          required={false}
          defaultValue={mapping?.amount_path ?? ""}
        />
        <Field
          label="Currency, fixed (e.g. EUR)"
          name="currency"
          required={false}
          defaultValue={mapping?.currency ?? ""}
        />
        <Field
          label="or currency path in the arguments"
          name="currency_path"
          required={false}
          defaultValue={mapping?.currency_path ?? ""}
        />
      </fieldset>
    </>
  );
}

function schemaOf(text: string): Record<string, unknown> | undefined {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new DashboardError("VALIDATION_FAILED", "The input schema is not JSON.");
  }
}

function mappingOf(d: FormData): AmountMapping | null {
  const amount_path = field(d, "amount_path").trim();
  if (!amount_path) return null;
  const currency = field(d, "currency").trim();
  const currency_path = field(d, "currency_path").trim();
  return {
    amount_path,
    ...(currency ? { currency } : {}),
    ...(currency_path ? { currency_path } : {}),
  };
}

/** The form's values as a request body: everything for a new tool. */
export function toolBody(d: FormData): Body & { exposed_name: string; action: string } {
  const schema = schemaOf(field(d, "input_schema"));
  const upstream = field(d, "upstream_name").trim();
  const mapping = mappingOf(d);
  return {
    exposed_name: field(d, "exposed_name"),
    action: field(d, "action"),
    ...(upstream ? { upstream_name: upstream } : {}),
    ...(field(d, "description") ? { description: field(d, "description") } : {}),
    ...(schema ? { input_schema: schema } : {}),
    ...(mapping ? { amount_mapping: mapping } : {}),
  };
}

/** JSON with sorted members, so a value read back from the service compares equal to the same value typed. */
const stable = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : x,
  );

/**
 * Only what the person changed: an unchanged member sent again could read as a change of what an
 * enabled tool means, which only an owner or admin may make.
 */
export function toolChanges(d: FormData, tool: Tool): Body {
  const next = toolBody(d);
  const out: Body = {};
  if (next.exposed_name !== tool.exposed_name) out.exposed_name = next.exposed_name;
  if (next.action !== tool.action) out.action = next.action;
  const upstream = next.upstream_name ?? next.exposed_name;
  if (upstream !== tool.upstream_name) out.upstream_name = upstream;
  const description = next.description ?? null;
  if (description !== tool.description) out.description = description;
  if (next.input_schema && stable(next.input_schema) !== stable(tool.input_schema))
    out.input_schema = next.input_schema;
  const mapping = next.amount_mapping ?? null;
  if (stable(mapping) !== stable(tool.amount_mapping)) out.amount_mapping = mapping;
  return out;
}
