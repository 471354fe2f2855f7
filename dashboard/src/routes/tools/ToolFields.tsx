import { Fieldset, Stack } from "@mantine/core";
import type { AmountMapping, Tool } from "@countersign/protocol/wire";
import { DashboardError } from "../../api/errors.js";
import type { ToolPatch as Body } from "../../api/tools.js";
import { Field, field, isJsonObject, jsonObjectIn } from "../../components/ActionForm.js";

/**
 * The field of a tool's form a refusal is about, by its code (SPEC 7): the exposed name another tool
 * has, an upstream tool the server does not list, a schema that is no MCP object schema.
 */
export const toolRefusalFields = {
  NAME_TAKEN: "exposed_name",
  UPSTREAM_TOOL_NOT_FOUND: "upstream_name",
  UPSTREAM_SCHEMA_INVALID: "input_schema",
};

/** What the person reads when the schema typed is no JSON object (nothing is sent then). */
const NOT_A_SCHEMA =
  "The input schema is not a JSON object: correct it, or leave it empty to read it from the server.";

/** The fields of a tool: exposed name, upstream tool, action, input schema, amount mapping. */
export function ToolFields({ tool, upstream }: { tool?: Tool; upstream?: string }) {
  const mapping = tool?.amount_mapping ?? null;
  return (
    <>
      <Field
        label="Exposed name (what the agent calls)"
        name="exposed_name"
        maxLength={128}
        defaultValue={tool?.exposed_name}
      />
      <Field
        label="Upstream tool (empty: the exposed name)"
        name="upstream_name"
        required={false}
        maxLength={512}
        defaultValue={tool?.upstream_name ?? upstream}
      />
      <Field
        label="Action (what policies decide on, e.g. payments.refund)"
        name="action"
        maxLength={200}
        defaultValue={tool?.action}
      />
      <Field
        label="Description"
        name="description"
        required={false}
        maxLength={4096}
        defaultValue={tool?.description ?? ""}
      />
      <Field
        label="Input schema (JSON; empty: read from the MCP server, or any object for an integration)"
        name="input_schema"
        required={false}
        multiline
        defaultValue={tool ? JSON.stringify(tool.input_schema, null, 2) : ""}
        validate={(text) => (jsonObjectIn(text) ? null : NOT_A_SCHEMA)}
      />
      <Fieldset legend="Amount mapping (optional)">
        <Stack gap="sm">
          <Field
            label="Amount path (e.g. amount or $.payment.amount)"
            description="Where the call's arguments hold the amount policies compare with their limits."
            name="amount_path"
            required={false}
            defaultValue={mapping?.amount_path ?? ""}
          />
          <Field
            label="Currency, fixed (e.g. EUR)"
            subject="The currency"
            name="currency"
            required={false}
            defaultValue={mapping?.currency ?? ""}
          />
          <Field
            label="or currency path in the arguments"
            subject="The currency path"
            name="currency_path"
            required={false}
            defaultValue={mapping?.currency_path ?? ""}
          />
        </Stack>
      </Fieldset>
    </>
  );
}

/** The schema typed, as an object; undefined when empty (the Field refused anything else already). */
function schemaOf(text: string): Record<string, unknown> | undefined {
  if (!text.trim()) return undefined;
  const schema = jsonObjectIn(text);
  if (!schema) throw new DashboardError("VALIDATION_FAILED", NOT_A_SCHEMA);
  return schema;
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
    isJsonObject(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x,
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
