import { isMap, isSeq, parseDocument, stringify, type Node } from "yaml";
import type { PolicyIssue } from "@countersign/protocol/policy";

/**
 * The editor's text as a policy document, in JSON or YAML (JSON is YAML, so one parser reads
 * both and keeps each node's place in the text, which is where an issue's path points).
 */
export type TextMode = "json" | "yaml";

export type ParsedText =
  | { ok: true; document: Record<string, unknown>; locate: (path: string) => { from: number; to: number } }
  | { ok: false; message: string; from: number; to: number };

export function parseText(text: string): ParsedText {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  const error = doc.errors[0];
  if (error) {
    const [from, to] = error.pos;
    // Counted here: the parser sets linePos only with prettyErrors, which rewrites the message.
    const line = text.slice(0, from).split("\n").length;
    return {
      ok: false,
      message: `Not valid (line ${line}): ${error.message.split("\n")[0]}`,
      from,
      to: Math.max(to, from),
    };
  }
  const value: unknown = doc.toJS({ maxAliasCount: 100 });
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { ok: false, message: "A policy document is an object (a mapping).", from: 0, to: text.length };
  return {
    ok: true,
    document: value as Record<string, unknown>,
    locate(path) {
      // The deepest node of the path that exists: a missing member points at its parent.
      const keys = path === "" ? [] : path.split(".").map((k) => (/^\d+$/.test(k) ? Number(k) : k));
      for (let n = keys.length; n >= 0; n--) {
        const node = (n === 0 ? doc.contents : doc.getIn(keys.slice(0, n), true)) as Node | undefined;
        if (node && (isMap(node) || isSeq(node) || "range" in node) && node.range)
          return { from: node.range[0], to: node.range[1] };
      }
      return { from: 0, to: 0 };
    },
  };
}

export function formatDocument(document: unknown, mode: TextMode): string {
  return mode === "json" ? `${JSON.stringify(document, null, 2)}\n` : stringify(document);
}

/** An issue's path as people read it: rules.0.conditions.1 -> rules[0].conditions[1]. */
export const readablePath = (i: PolicyIssue) =>
  i.path === "" ? "(document)" : i.path.replace(/\.(\d+)(?=\.|$)/g, "[$1]");
