import { amountMappingSchema, type AmountMapping } from "@countersign/protocol/wire";

/** A tool's amount mapping: its wire schema, shared with the dashboard. */
export const amountMapping = amountMappingSchema;
export type { AmountMapping };

export interface MappedAmount {
  /** Exact decimal text, e.g. "1250.50"; never a float. */
  amount: string;
  currency: string;
}

const DECIMAL = /^-?\d{1,40}(\.\d{1,40})?$/;
const CURRENCY = /^[A-Z]{3}$/;

function at(args: Record<string, unknown>, path: string): unknown {
  let v: unknown = args;
  for (const name of path.replace(/^\$\./, "").split(".")) {
    if (typeof v !== "object" || v === null || Array.isArray(v) || !Object.hasOwn(v, name)) return undefined;
    v = (v as Record<string, unknown>)[name];
  }
  return v;
}

/**
 * The amount of a call, `null` when the tool maps none, or `"invalid"` when the
 * mapping points at something that is not an exact amount with a currency
 * (denied INVALID_AMOUNT). Whole numbers and decimal strings are accepted.
 */
export function mapAmount(
  mapping: AmountMapping | null | undefined,
  args: Record<string, unknown>,
): MappedAmount | null | "invalid" {
  if (!mapping) return null;
  const raw = at(args, mapping.amount_path);
  const amount =
    typeof raw === "number" && Number.isSafeInteger(raw)
      ? String(raw)
      : typeof raw === "string"
        ? raw
        : undefined;
  if (amount === undefined || !DECIMAL.test(amount)) return "invalid";
  const currency = mapping.currency ?? at(args, mapping.currency_path ?? "");
  if (typeof currency !== "string" || !CURRENCY.test(currency)) return "invalid";
  return { amount, currency };
}
