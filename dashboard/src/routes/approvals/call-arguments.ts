/**
 * A held call's arguments as the approver reads them, from the RFC 8785 text whose digest the TASK
 * signs. Values are cut out of that text and indented, never parsed and printed again, so what is
 * shown is byte for byte what was signed (a large integer keeps every digit, a string every
 * escape).
 */

/** Top-level members of a canonical JSON object, as `[name, raw value text]`; null for anything else. */
export function topLevelMembers(text: string): [string, string][] | null {
  const t = text.trim();
  if (!t.startsWith("{") || !t.endsWith("}")) return null;
  const members: [string, string][] = [];
  let i = 1;
  const end = t.length - 1;
  const skipSpace = () => {
    while (i < end && /\s/.test(t[i]!)) i++;
  };
  const scanString = () => {
    const start = i++;
    while (i < end && t[i] !== '"') i += t[i] === "\\" ? 2 : 1;
    i++;
    return t.slice(start, i);
  };
  skipSpace();
  while (i < end) {
    if (t[i] !== '"') return null;
    const name = JSON.parse(scanString()) as string;
    skipSpace();
    if (t[i] !== ":") return null;
    i++;
    skipSpace();
    const start = i;
    let depth = 0;
    while (i < end) {
      const c = t[i]!;
      if (c === '"') {
        scanString();
        continue;
      }
      if (c === "{" || c === "[") depth++;
      else if (c === "}" || c === "]") depth--;
      else if (c === "," && depth === 0) break;
      i++;
    }
    members.push([name, t.slice(start, i).trim()]);
    i++;
    skipSpace();
  }
  return members;
}

/** The raw JSON text indented two spaces a level, tokens untouched. */
export function indentJson(raw: string): string {
  let out = "";
  let level = 0;
  const newline = () => `\n${"  ".repeat(level)}`;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '"') {
      const start = i++;
      while (i < raw.length && raw[i] !== '"') i += raw[i] === "\\" ? 2 : 1;
      out += raw.slice(start, i + 1);
    } else if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      if (raw[i + 1] === close) {
        out += c + close;
        i++;
      } else {
        level++;
        out += c + newline();
      }
    } else if (c === "}" || c === "]") {
      level--;
      out += newline() + c;
    } else if (c === ",") out += "," + newline();
    else if (c === ":") out += ": ";
    else if (!/\s/.test(c)) out += c;
  }
  return out;
}

/** Values longer than this are shown collapsed, with how much is hidden and a way to see it all. */
export const COLLAPSED_CHARACTERS = 160;
