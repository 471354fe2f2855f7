import { useEffect, useMemo, useState } from "react";
import {
  ActionIcon,
  Alert,
  Button,
  Group,
  List,
  NativeSelect,
  Stack,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import {
  compilePolicy,
  exampleOutcomes,
  runExamples,
  validateExamples,
  validatePolicy,
  type ExampleResult,
  type PolicyExample,
} from "@countersign/protocol/policy";
import { policies, type DocumentJson, policyKeys } from "../../api/policies.js";
import { fieldName, issueSentence, type Issue } from "../../api/issue-sentences.js";
import { DataTable } from "../../components/DataTable.js";
import { EmptyState } from "../../components/EmptyState.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { StatusBadge } from "../../components/StatusBadge.js";

interface Row {
  id: string;
  label: string;
  tool: string;
  action: string;
  amount: string;
  currency: string;
  expected_outcome: PolicyExample["expected_outcome"];
  expected_rule: string;
}

const toRow = (e: PolicyExample): Row => ({
  id: e.id,
  label: e.label ?? "",
  tool: e.tool,
  action: e.action,
  amount: e.amount ?? "",
  currency: e.currency ?? "",
  expected_outcome: e.expected_outcome,
  expected_rule: e.expected_rule,
});
const toExample = (r: Row) => ({
  id: r.id,
  ...(r.label ? { label: r.label } : {}),
  tool: r.tool,
  action: r.action,
  ...(r.amount ? { amount: r.amount } : {}),
  ...(r.currency ? { currency: r.currency } : {}),
  expected_outcome: r.expected_outcome,
  expected_rule: r.expected_rule,
});

/**
 * An issue of the examples list, numbered as the rows are (from 1; the path's index is from 0), with
 * its field in the column's words: "Example 2: the tool is empty: fill it in."
 */
function exampleIssueSentence(issue: Issue): string {
  const index = /^(\d+)(?:\.|$)/.exec(issue.path)?.[1];
  if (index === undefined) return issueSentence(issue, "The list of examples");
  const row = Number(index) + 1;
  if (issue.code === "duplicate_example_id")
    return `Example ${row}: the id is used by another example. Give each example its own id.`;
  if (issue.code === "amount_needs_currency")
    return `Example ${row}: an amount needs its currency and a currency its amount. Fill in both or neither.`;
  if (issue.path.endsWith(".currency"))
    return `Example ${row}: the currency is three capital letters, such as EUR.`;
  return `Example ${row}: ${issueSentence(issue, fieldName(issue.path))}`;
}

/**
 * The policy's saved examples, edited here and run, as they are typed, against the editor's
 * text by the same engine the Cloud API runs (protocol's runExamples): pass or fail is known
 * before anything is saved.
 */
export function ExamplesEditor({
  orgId,
  policyId,
  saved,
  document,
  mayWrite,
}: {
  orgId: string;
  policyId: string;
  saved: PolicyExample[];
  /** The editor's document when it parses; null while it does not. */
  document: DocumentJson | null;
  mayWrite: boolean;
}) {
  const queryClient = useQueryClient();
  const [rows, setRows] = useState<Row[]>(() => saved.map(toRow));
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const savedKey = JSON.stringify(saved);
  useEffect(() => setRows(saved.map(toRow)), [savedKey]);

  const check = useMemo(() => validateExamples(rows.map(toExample)), [rows]);
  const results = useMemo((): Map<string, ExampleResult> | string => {
    if (!check.ok) return "Fix the examples first.";
    if (!document) return "The editor's text is not a document yet.";
    const v = validatePolicy(document);
    if (!v.ok) return "The editor's text is not a valid policy yet.";
    return new Map(runExamples(compilePolicy(v.document), check.examples).results.map((r) => [r.id, r]));
  }, [check, document]);

  const set = (i: number, patch: Partial<Row>) =>
    setRows((rs) => rs.map((r, n) => (n === i ? { ...r, ...patch } : r)));
  const failing =
    typeof results === "string" ? 0 : [...results.values()].filter((r) => r.passed === false).length;

  async function save() {
    setError(null);
    setDone(null);
    try {
      if (!check.ok) throw new Error("the examples are not valid yet");
      await policies.saveExamples(orgId, policyId, check.examples);
      setDone(`${check.examples.length} example(s) saved.`);
      await queryClient.invalidateQueries({ queryKey: policyKeys.one(policyId) });
    } catch (err) {
      setError(err);
    }
  }

  const cell = (i: number, key: Exclude<keyof Row, "expected_outcome">, label: string, width: number) => (
    <TextInput
      size="xs"
      miw={width}
      aria-label={`Example ${i + 1} ${label}`}
      value={rows[i]![key]}
      readOnly={!mayWrite}
      onChange={(e) => set(i, { [key]: e.currentTarget.value })}
    />
  );
  const indexed = rows.map((r, i) => ({ r, i }));

  return (
    <Stack gap="sm" component="section" aria-labelledby="examples-heading">
      <Title order={2} size="h3" id="examples-heading">
        Examples
      </Title>
      <Text size="sm" c="dimmed">
        Each example is a call and the outcome and rule expected for it; activation checks them. Results below
        are against the editor&apos;s text, before anything is saved.
      </Text>
      <DataTable<{ r: Row; i: number }>
        testId="examples"
        caption="Examples"
        rows={indexed}
        rowKey={({ i }) => String(i)}
        empty={
          <EmptyState title="No examples yet.">
            {mayWrite
              ? "Add one with “Add an example” below: a call and the outcome you expect for it."
              : "Owners, admins and developers add them."}
          </EmptyState>
        }
        columns={[
          { key: "id", header: "Id", render: ({ i }) => cell(i, "id", "id", 110) },
          { key: "label", header: "Label", render: ({ i }) => cell(i, "label", "label", 110) },
          { key: "tool", header: "Tool", render: ({ i }) => cell(i, "tool", "tool", 120) },
          { key: "action", header: "Action", render: ({ i }) => cell(i, "action", "action", 120) },
          {
            key: "amount",
            header: "Amount",
            align: "right",
            render: ({ i }) => cell(i, "amount", "amount", 80),
          },
          { key: "currency", header: "Currency", render: ({ i }) => cell(i, "currency", "currency", 60) },
          {
            key: "expected",
            header: "Expected",
            render: ({ r, i }) => (
              <NativeSelect
                size="xs"
                miw={130}
                aria-label={`Example ${i + 1} expected outcome`}
                value={r.expected_outcome}
                disabled={!mayWrite}
                onChange={(e) => {
                  const outcome = exampleOutcomes.find((o) => o === e.currentTarget.value);
                  if (outcome) set(i, { expected_outcome: outcome });
                }}
                data={[...exampleOutcomes]}
              />
            ),
          },
          {
            key: "rule",
            header: "Rule",
            render: ({ i }) => cell(i, "expected_rule", "expected rule (empty for the default)", 120),
          },
          {
            key: "result",
            header: "Against the editor",
            render: ({ r }) => {
              const res = typeof results === "string" ? undefined : results.get(r.id);
              return (
                <Text
                  span
                  size="sm"
                  data-testid="example-result"
                  data-passed={res ? String(res.passed) : "unknown"}
                >
                  {!res ? (
                    "—"
                  ) : res.passed === null ? (
                    `${res.actual.outcome} (no expectation)`
                  ) : res.passed ? (
                    <StatusBadge status="succeeded" label="passes" />
                  ) : (
                    <StatusBadge
                      status="failed"
                      label={`fails: ${res.actual.outcome} by ${res.actual.rule_id ?? "the default"}`}
                    />
                  )}
                </Text>
              );
            },
          },
          {
            key: "remove",
            header: (
              <Text span inherit>
                Remove
              </Text>
            ),
            render: ({ i }) =>
              mayWrite ? (
                <ActionIcon
                  variant="subtle"
                  color="gray"
                  aria-label={`Remove example ${i + 1}`}
                  onClick={() => setRows((rs) => rs.filter((_, n) => n !== i))}
                >
                  ×
                </ActionIcon>
              ) : null,
          },
        ]}
      />
      {typeof results === "string" && rows.length > 0 && (
        <Text c="dimmed" size="sm">
          {results}
        </Text>
      )}
      {!check.ok && (
        <List size="sm" c="var(--mantine-color-error)">
          {check.issues.map((i, n) => (
            <List.Item key={n} data-testid="example-issue">
              {exampleIssueSentence(i)}
            </List.Item>
          ))}
        </List>
      )}
      <Text size="sm" aria-live="polite" data-testid="examples-summary">
        {typeof results === "string"
          ? ""
          : `${results.size - failing} of ${results.size} pass or have no expectation; ${failing} fail.`}
      </Text>
      {mayWrite && (
        <Group gap="sm">
          <Button
            variant="default"
            onClick={() =>
              setRows((rs) => [
                ...rs,
                {
                  id: `example-${rs.length + 1}`,
                  label: "",
                  tool: "",
                  action: "",
                  amount: "",
                  currency: "",
                  expected_outcome: "allowed",
                  expected_rule: "",
                },
              ])
            }
          >
            Add an example
          </Button>
          <Button onClick={save} disabled={!check.ok}>
            Save examples
          </Button>
        </Group>
      )}
      {done && (
        <Alert color="green" variant="light" role="status">
          {done}
        </Alert>
      )}
      <ErrorNotice error={error} />
    </Stack>
  );
}
