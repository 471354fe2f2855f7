import { Fieldset, Stack, Textarea, TextInput } from "@mantine/core";
import type { AmountMapping, Tool } from "@countersign/protocol/wire";
import { DashboardError } from "../../api/errors.js";
import type { ToolPatch as Body } from "../../api/tools.js";
import { field, isJsonObject } from "../../components/ActionForm.js";
import type { ErrorOf } from "../../components/FieldForm.js";

/** The fields of a tool's form, as the API names them, in the order the form shows them. */
export const toolFieldNames = [
  "exposed_name",
  "upstream_name",
  "action",
  "description",
  "input_schema",
  "amount_path",
  "currency",
  "currency_path",
] as const;

/**
 * The field a tool's refusal is about, by its code (SPEC 7): the exposed name another tool has, an
 * upstream tool the server does not list, a schema that is no MCP object schema, a server gone.
 */
export const toolRefusalFields = {
  NAME_TAKEN: "exposed_name",
  UPSTREAM_TOOL_NOT_FOUND: "upstream_name",
  UPSTREAM_SCHEMA_INVALID: "input_schema",
  MCP_SERVER_NOT_FOUND: "mcp_server_id",
};

/** The fields of a tool: exposed name, upstream tool, action, input schema, amount mapping. */
export function ToolFields({
  tool,
  upstream,
  errorOf,
}: {
  tool?: Tool;
  upstream?: string;
  errorOf: ErrorOf;
}) {
  const mapping = tool?.amount_mapping ?? null;
  return (
    <>
      <TextInput
        label="Exposed name (what the agent calls)"
        name="exposed_name"
        required
        defaultValue={tool?.exposed_name}
        error={errorOf("exposed_name")}
      />
      <TextInput
        label="Upstream tool (empty: the exposed name)"
        name="upstream_name"
        defaultValue={tool?.upstream_name ?? upstream}
        error={errorOf("upstream_name")}
      />
      <TextInput
        label="Action (what policies decide on, e.g. payments.refund)"
        name="action"
        required
        defaultValue={tool?.action}
        error={errorOf("action")}
      />
      <TextInput
        label="Description"
        name="description"
        defaultValue={tool?.description ?? ""}
        error={errorOf("description")}
      />
      <Textarea
        label="Input schema (JSON; empty: read from the MCP server, or any object for an integration)"
        name="input_schema"
        autosize
        minRows={4}
        maxRows={16}
        ff="monospace"
        defaultValue={tool ? JSON.stringify(tool.input_schema, null, 2) : ""}
        error={errorOf("input_schema")}
      />
      <Fieldset legend="Amount mapping (optional)">
        <Stack gap="sm">
          <TextInput
            label="Amount path (e.g. amount or $.payment.amount)"
            description="Where the call's arguments hold the amount policies compare with their limits."
            name="amount_path"
            defaultValue={mapping?.amount_path ?? ""}
            error={errorOf("amount_path")}
          />
          <TextInput
            label="Currency, fixed (e.g. EUR)"
            name="currency"
            defaultValue={mapping?.currency ?? ""}
            error={errorOf("currency")}
          />
          <TextInput
            label="or currency path in the arguments"
            name="currency_path"
            defaultValue={mapping?.currency_path ?? ""}
            error={errorOf("currency_path")}
          />
        </Stack>
      </Fieldset>
    </>
  );
}

/** The schema typed, checked to be a JSON object before anything is sent; undefined when empty. */
function schemaOf(text: string): Record<string, unknown> | undefined {
  if (!text.trim()) return undefined;
  const refuse = (message: string) =>
    new DashboardError("VALIDATION_FAILED", message, undefined, { field: "input_schema" });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw refuse("The input schema is not JSON. Correct it, or leave it empty to read it from the server.");
  }
  if (!isJsonObject(parsed)) throw refuse("The input schema is not a JSON object.");
  return parsed;
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
