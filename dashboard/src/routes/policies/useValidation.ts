import { useEffect, useState } from "react";
import type { PolicyIssue } from "@countersign/protocol/policy";
import { policies, type DocumentJson, type LintReport } from "../../api/policies.js";
import { failureOf } from "../../api/errors.js";
import { parseText, type ParsedText } from "./document-text.js";

export type Validation =
  | { state: "checking" }
  | { state: "syntax"; parsed: Extract<ParsedText, { ok: false }> }
  | {
      state: "invalid";
      document: DocumentJson;
      issues: PolicyIssue[];
      locate: (path: string) => { from: number; to: number };
    }
  | {
      state: "valid";
      document: DocumentJson;
      revision: number;
      digest: string;
      lint: LintReport;
      locate: (path: string) => { from: number; to: number };
    }
  | { state: "error"; error: unknown };

/**
 * Live validation of the editor's text by the Cloud API (POST .../policies/validate, which also
 * lints against the organization's tools), a moment after typing stops; a request made stale by
 * newer text is aborted.
 */
export function useValidation(orgId: string, text: string): Validation {
  const [result, setResult] = useState<Validation>({ state: "checking" });
  useEffect(() => {
    const parsed = parseText(text);
    if (!parsed.ok) {
      setResult({ state: "syntax", parsed });
      return;
    }
    setResult({ state: "checking" });
    const abort = new AbortController();
    const timer = setTimeout(() => {
      policies.validate(orgId, parsed.document, abort.signal).then(
        (v) =>
          setResult({
            state: "valid",
            document: parsed.document,
            revision: v.language_revision,
            digest: v.digest,
            lint: v.lint,
            locate: parsed.locate,
          }),
        (err: unknown) => {
          if (abort.signal.aborted) return;
          const failure = failureOf(err);
          if (failure?.code === "POLICY_INVALID")
            setResult({
              state: "invalid",
              document: parsed.document,
              issues: (failure.details?.issues as PolicyIssue[] | undefined) ?? [],
              locate: parsed.locate,
            });
          else setResult({ state: "error", error: err });
        },
      );
    }, 350);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [orgId, text]);
  return result;
}
