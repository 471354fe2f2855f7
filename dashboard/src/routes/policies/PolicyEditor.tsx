import { useId, useState } from "react";
import { Alert, Button, Code, Group, List, Radio, Stack, Text, TextInput, Title } from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import { policies, policyKeys } from "../../api/policies.js";
import { DashboardError, failureOf } from "../../api/errors.js";
import { CodeEditor, type Diagnostic } from "../../components/CodeEditor.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { LoadingLine } from "../../components/Loading.js";
import { StatusBadge } from "../../components/StatusBadge.js";
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
    <Stack gap="sm" component="section" aria-labelledby="editor-heading">
      <Group justify="space-between" align="flex-end">
        <Title order={2} size="h3" id="editor-heading">
          Document
        </Title>
        <Radio.Group
          name="mode"
          label="Format"
          value={mode}
          onChange={(v) => (v === "json" || v === "yaml" ? switchMode(v) : undefined)}
        >
          <Group gap="md" mt={4}>
            <Radio value="json" label="JSON" />
            <Radio value="yaml" label="YAML" />
          </Group>
        </Radio.Group>
      </Group>
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
        <Group gap="sm" align="flex-end">
          <TextInput
            label="Note for this version (optional)"
            value={note}
            onChange={(e) => setNote(e.currentTarget.value)}
            maxLength={2000}
            w={360}
          />
          <Button onClick={save} loading={busy} disabled={validation.state !== "valid"}>
            Save as a draft version
          </Button>
        </Group>
      )}
      {saved && (
        <Alert color="green" variant="light" role="status">
          {saved}
        </Alert>
      )}
      <ErrorNotice error={error} />
    </Stack>
  );
}

const errorText = "var(--mantine-color-error)";

function ValidationSummary({ validation: v }: { validation: Validation }) {
  switch (v.state) {
    case "checking":
      return <LoadingLine />;
    case "syntax":
      return (
        <Text size="sm" c={errorText}>
          {v.parsed.message}
        </Text>
      );
    case "error":
      return <ErrorNotice error={v.error} />;
    case "invalid":
      return (
        <Stack gap={4}>
          <Group gap="xs">
            <StatusBadge status="invalid" />
            <Text size="sm" c={errorText} data-code="POLICY_INVALID">
              Not a valid policy: {v.issues.length} issue{v.issues.length === 1 ? "" : "s"}.
            </Text>
          </Group>
          <List size="sm" data-testid="issues">
            {v.issues.map((i, n) => (
              <List.Item key={n}>
                <Code>{readablePath(i)}</Code> {i.message}{" "}
                <Text span size="xs" c="dimmed" ff="monospace">
                  ({i.code})
                </Text>
              </List.Item>
            ))}
          </List>
        </Stack>
      );
    case "valid":
      return (
        <Stack gap={4}>
          <Group gap="xs">
            <StatusBadge status="valid" />
            <Text size="sm">
              Language revision {v.revision}.{" "}
              {v.lint.total === 0
                ? "No lint warnings."
                : `${v.lint.total} lint warning${v.lint.total === 1 ? "" : "s"}:`}
            </Text>
          </Group>
          {v.lint.total > 0 && (
            <List size="sm" data-testid="lint">
              {v.lint.warnings.map((w, n) => (
                <List.Item key={n}>
                  <Code>{readablePath(w)}</Code> {w.message}{" "}
                  <Text span size="xs" c="dimmed" ff="monospace">
                    ({w.code})
                  </Text>
                </List.Item>
              ))}
            </List>
          )}
        </Stack>
      );
  }
}
