import { useId, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { policies, policyKeys } from "../../api/policies.js";
import { DashboardError, failureOf } from "../../api/errors.js";
import { CodeEditor, type Diagnostic } from "../../components/CodeEditor.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { formatDocument, parseText, readablePath, type TextMode } from "./document-text.js";
import type { Validation } from "./useValidation.js";

/** The document editor, what validation and lint say about its text, and saving it as a draft version. */
export function PolicyEditor({
  orgId,
  policyId,
  text,
  setText,
  mode,
  setMode,
  validation,
  mayWrite,
}: {
  orgId: string;
  policyId: string;
  text: string;
  setText: (t: string) => void;
  mode: TextMode;
  setMode: (m: TextMode) => void;
  validation: Validation;
  mayWrite: boolean;
}) {
  const summaryId = useId();
  const queryClient = useQueryClient();
  const [note, setNote] = useState("");
  const [saved, setSaved] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const diagnostics: Diagnostic[] =
    validation.state === "syntax"
      ? [{ ...validation.parsed, severity: "error", message: validation.parsed.message }]
      : validation.state === "invalid"
        ? validation.issues.map((i) => ({
            ...validation.locate(i.path),
            severity: "error",
            message: i.message,
          }))
        : validation.state === "valid"
          ? validation.lint.warnings.map((w) => ({
              ...validation.locate(w.path),
              severity: "warning",
              message: w.message,
            }))
          : [];

  function switchMode(next: TextMode) {
    const parsed = parseText(text);
    // A text that does not parse stays as typed; only its highlighting changes.
    if (parsed.ok) setText(formatDocument(parsed.document, next));
    setMode(next);
  }

  async function save() {
    if (validation.state !== "valid") return;
    setBusy(true);
    setError(null);
    setSaved(null);
    try {
      const { version } = await policies.saveVersion(orgId, policyId, {
        document: validation.document,
        ...(note.trim() ? { note: note.trim() } : {}),
      });
      setSaved(`Saved as version ${version.number} (a draft).`);
      setNote("");
      await queryClient.invalidateQueries({ queryKey: policyKeys.one(policyId) });
    } catch (err) {
      const failure = failureOf(err);
      if (failure?.code === "DRAFT_EXISTS")
        setError(
          new DashboardError(
            failure.code,
            `Draft version ${String(failure.details?.number ?? "")} already holds this exact document; there is nothing new to save.`,
          ),
        );
      else setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="editor-heading">
      <h2 id="editor-heading">Document</h2>
      <fieldset className="inline">
        <legend>Format</legend>
        {(["json", "yaml"] as const).map((m) => (
          <label key={m}>
            <input type="radio" name="mode" checked={mode === m} onChange={() => switchMode(m)} />{" "}
            {m.toUpperCase()}
          </label>
        ))}
      </fieldset>
      <CodeEditor
        value={text}
        onChange={setText}
        mode={mode}
        label="Policy document"
        diagnostics={diagnostics}
      />
      <div id={summaryId} aria-live="polite" data-testid="validation" data-state={validation.state}>
        <ValidationSummary validation={validation} />
      </div>
      {mayWrite && (
        <div className="row">
          <label>
            Note for this version (optional)
            <input value={note} onChange={(e) => setNote(e.target.value)} maxLength={2000} />
          </label>
          <button type="button" onClick={save} disabled={busy || validation.state !== "valid"}>
            Save as a draft version
          </button>
        </div>
      )}
      {saved && <p role="status">{saved}</p>}
      <ErrorNotice error={error} />
    </section>
  );
}

function ValidationSummary({ validation: v }: { validation: Validation }) {
  switch (v.state) {
    case "checking":
      return <p className="muted">Checking…</p>;
    case "syntax":
      return <p className="error">{v.parsed.message}</p>;
    case "error":
      return <ErrorNotice error={v.error} />;
    case "invalid":
      return (
        <>
          <p className="error" data-code="POLICY_INVALID">
            Not a valid policy: {v.issues.length} issue{v.issues.length === 1 ? "" : "s"}.
          </p>
          <ul data-testid="issues">
            {v.issues.map((i, n) => (
              <li key={n}>
                <code>{readablePath(i)}</code> {i.message} <span className="code">({i.code})</span>
              </li>
            ))}
          </ul>
        </>
      );
    case "valid":
      return (
        <>
          <p className="ok">
            Valid, language revision {v.revision}.{" "}
            {v.lint.total === 0
              ? "No lint warnings."
              : `${v.lint.total} lint warning${v.lint.total === 1 ? "" : "s"}:`}
          </p>
          {v.lint.total > 0 && (
            <ul data-testid="lint">
              {v.lint.warnings.map((w, n) => (
                <li key={n}>
                  <code>{readablePath(w)}</code> {w.message} <span className="code">({w.code})</span>
                </li>
              ))}
            </ul>
          )}
        </>
      );
  }
}
