import { Button, Group, Stack, Text } from "@mantine/core";
import { useState, type FormEvent, type ReactNode } from "react";
import { failureOf, messageOf } from "../api/errors.js";
import { issuesIn } from "../api/issue-sentences.js";
import { RefusalNotice, refusalFacts } from "./RefusalNotice.js";

/** A field's `error` prop: the refusal's sentence when it concerns that field, else nothing. */
export type ErrorOf = (field: string) => ReactNode;

/**
 * A form whose refusal is shown where the person looks for it: under the field it concerns, or
 * under the button when it concerns none. A refusal concerns a field when a VALIDATION_FAILED
 * issue's path names it (`url`, `amount_mapping.amount_path`, `input_schema.properties`), when a
 * check in the browser says so (`details.field`), or when its code is about one field only
 * (`byCode`: URL_NOT_ALLOWED is about the address, NAME_TAKEN about the name). The field's input
 * is then marked invalid and described by the sentence (Mantine's `error`).
 */
export function FieldForm({
  onSubmit,
  submit,
  fields,
  byCode = {},
  children,
}: {
  onSubmit: (data: FormData) => Promise<void>;
  /** The submit button's words. */
  submit: string;
  /** The form's fields, as the API names them, in the order the form shows them. */
  fields: readonly string[];
  byCode?: Readonly<Record<string, string>>;
  children: (errorOf: ErrorOf) => ReactNode;
}) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const field = error ? refusedField(error, fields, byCode) : null;
  async function handle(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      await onSubmit(new FormData(e.currentTarget));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  const errorOf: ErrorOf = (name) => (field === name ? <FieldRefusal error={error} /> : undefined);
  return (
    <form onSubmit={handle}>
      <Stack gap="sm" maw={640}>
        {children(errorOf)}
        <Group>
          <Button type="submit" loading={busy}>
            {submit}
          </Button>
        </Group>
        {!field && <RefusalNotice error={error} />}
      </Stack>
    </form>
  );
}

/** The first of the form's fields the refusal concerns, or null when it concerns the whole form. */
export function refusedField(
  error: unknown,
  fields: readonly string[],
  byCode: Readonly<Record<string, string>> = {},
): string | null {
  const failure = failureOf(error);
  if (!failure) return null;
  const named = failure.details?.field;
  if (typeof named === "string" && fields.includes(named)) return named;
  if (failure.code === "VALIDATION_FAILED") {
    const paths = issuesIn(failure.details).map((i) => i.path);
    return fields.find((f) => paths.some((p) => concerns(p, f))) ?? null;
  }
  const byItsCode = byCode[failure.code];
  return byItsCode !== undefined && fields.includes(byItsCode) ? byItsCode : null;
}

/** Whether an issue's path is about the field: the field itself, inside it, or its member. */
const concerns = (path: string, field: string) =>
  path === field || path.startsWith(`${field}.`) || path.endsWith(`.${field}`);

/**
 * A refusal as a field's error: the sentence with its code, announced as the form-level notice
 * is (role=alert), and what its details add.
 */
function FieldRefusal({ error }: { error: unknown }) {
  const { code, text } = messageOf(error);
  const facts = refusalFacts(error);
  return (
    <>
      <span role="alert" data-code={code}>
        {text}{" "}
        <Text span size="xs" ff="monospace">
          ({code})
        </Text>
      </span>
      {facts.length > 0 && <span data-testid="refusal-details"> {facts.join(" ")}</span>}
    </>
  );
}
