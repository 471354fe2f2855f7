import { canonicalJson, hasLoneSurrogate } from "@countersign/protocol/canonical";

/**
 * The limits on the arguments of one tool call (SPEC 8.3). A violation is
 * invalid_request / INVALID_ARGUMENTS and nothing is recorded. Checked before
 * any database work, so a hostile body costs one walk of at most 28 levels.
 */
export const argumentLimits = {
  canonicalBytes: 224 * 1024,
  indentedBytes: 512 * 1024,
  depth: 28,
  maxWhole: Number.MAX_SAFE_INTEGER,
} as const;

export type ArgumentProblem =
  | "not_an_object"
  | "too_deep"
  | "not_whole_number"
  | "number_out_of_range"
  | "nul_character"
  | "lone_surrogate"
  | "case_duplicate_member"
  | "too_large"
  | "too_large_indented";

const messages: Record<ArgumentProblem, string> = {
  not_an_object: "arguments must be a JSON object",
  too_deep: `arguments are nested deeper than ${argumentLimits.depth} levels`,
  not_whole_number: "arguments may hold whole numbers only; send decimals as strings",
  number_out_of_range: "a number in the arguments is outside -(2^53-1) to 2^53-1",
  nul_character: "a text in the arguments contains U+0000",
  lone_surrogate: "a text in the arguments is not valid Unicode (a lone surrogate)",
  case_duplicate_member: "two member names of one object in the arguments differ only by letter case",
  too_large: "arguments are larger than 224 KiB as canonical JSON",
  too_large_indented: "arguments are larger than 512 KiB as a receipt prints them",
};

export interface ArgumentCheck {
  ok: boolean;
  problem?: ArgumentProblem;
  /** Says which limit was broken, never where or with what value. */
  message?: string;
  /** RFC 8785 text of the arguments when ok: what the arguments digest is taken over. */
  canonical?: string;
}

// Request bodies with either never get this far (the text rule refuses them first); checked here
// too so that the canonical text below is defined for every value the walk lets through.
function textProblemOf(text: string): ArgumentProblem | undefined {
  if (text.includes("\u0000")) return "nul_character";
  return hasLoneSurrogate(text) ? "lone_surrogate" : undefined;
}

function walk(value: unknown, depth: number): ArgumentProblem | undefined {
  if (typeof value === "string") return textProblemOf(value);
  if (typeof value === "number") {
    if (!Number.isInteger(value)) return "not_whole_number";
    if (Math.abs(value) > argumentLimits.maxWhole) return "number_out_of_range";
    return undefined;
  }
  if (value === null || typeof value === "boolean") return undefined;
  if (depth > argumentLimits.depth) return "too_deep";
  if (Array.isArray(value)) {
    for (const v of value) {
      const p = walk(v, depth + 1);
      if (p) return p;
    }
    return undefined;
  }
  const seen = new Set<string>();
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const inName = textProblemOf(k);
    if (inName) return inName;
    const folded = k.toLowerCase();
    if (seen.has(folded)) return "case_duplicate_member";
    seen.add(folded);
    const p = walk(v, depth + 1);
    if (p) return p;
  }
  return undefined;
}

export function checkArguments(args: unknown): ArgumentCheck {
  const fail = (problem: ArgumentProblem): ArgumentCheck => ({
    ok: false,
    problem,
    message: messages[problem],
  });
  if (typeof args !== "object" || args === null || Array.isArray(args)) return fail("not_an_object");
  // The arguments object is level 1; its members are level 2.
  const problem = walk(args, 1);
  if (problem) return fail(problem);
  const canonical = canonicalJson(args);
  if (Buffer.byteLength(canonical, "utf8") > argumentLimits.canonicalBytes) return fail("too_large");
  // Only compute the indented form when it could be over its limit: it is at most ~3x canonical.
  if (canonical.length * 3 > argumentLimits.indentedBytes) {
    if (Buffer.byteLength(JSON.stringify(args, null, 2), "utf8") > argumentLimits.indentedBytes)
      return fail("too_large_indented");
  }
  return { ok: true, canonical };
}
