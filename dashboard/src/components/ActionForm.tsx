import { Box, Button, Group, PasswordInput, Stack, Textarea, TextInput } from "@mantine/core";
import {
  createContext,
  useContext,
  useEffect,
  useId,
  useRef,
  useState,
  type FormEvent,
  type ReactNode,
} from "react";
import { RefusalNotice } from "./RefusalNotice.js";
import { DashboardError, failureOf, messageOf } from "../api/errors.js";
import { issueSentence, issuesIn } from "../api/issue-sentences.js";

/**
 * What a form knows of each of its Fields: how to check it, and how to show a sentence under it
 * (its own check's, or the one the Cloud API's VALIDATION_FAILED gave for its path).
 */
interface FieldHandle {
  /** The field's key in a refusal's issue paths (the last segment), usually its name. */
  issueKey: string;
  /** Checks the value; shows and returns the sentence when it is wrong. */
  check: () => string | null;
  /** Shows a sentence under the field (null clears it). */
  show: (sentence: string | null) => void;
  /** Says it in the field's own words: "The password must be…". */
  subject: string;
  focus: () => void;
}

const FormFields = createContext<Map<string, FieldHandle> | null>(null);

/**
 * A form that runs one action. Its Fields are checked when it is sent, each wrong one saying why in
 * a sentence under it (nothing is sent then); a refusal shows below the button with its code, and a
 * VALIDATION_FAILED refusal's issues also show under the fields they name. The button shows it is
 * busy while the action runs.
 */
export function ActionForm({
  onSubmit,
  submit,
  children,
  done,
  refusalFields,
}: {
  onSubmit: (data: FormData) => Promise<void>;
  submit: string;
  children?: ReactNode;
  done?: ReactNode;
  /**
   * Refusals whose code is about one field (URL_NOT_ALLOWED about the address, NAME_TAKEN about
   * the name), by code: their sentence also shows under the field with that issue key.
   */
  refusalFields?: Readonly<Record<string, string>>;
}) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [finished, setFinished] = useState(false);
  const fields = useRef(new Map<string, FieldHandle>());
  async function handle(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setError(null);
    const wrong = [...fields.current.values()].filter((f) => f.check() !== null);
    if (wrong.length) {
      wrong[0]!.focus();
      return;
    }
    setBusy(true);
    try {
      await onSubmit(new FormData(e.currentTarget));
      setFinished(true);
    } catch (err) {
      setError(err);
      showIssues(err, fields.current, refusalFields);
    } finally {
      setBusy(false);
    }
  }
  if (finished && done) return <>{done}</>;
  return (
    <FormFields.Provider value={fields.current}>
      <Box component="form" onSubmit={handle} noValidate>
        <Stack gap="sm" align="stretch">
          {children}
          <Group>
            <Button type="submit" loading={busy}>
              {submit}
            </Button>
          </Group>
          <RefusalNotice error={error} />
        </Stack>
      </Box>
    </FormFields.Provider>
  );
}

/**
 * A VALIDATION_FAILED refusal's issues under the fields whose names their paths end with; another
 * refusal's sentence under the field its code is about (`refusalFields`).
 */
function showIssues(
  err: unknown,
  fields: Map<string, FieldHandle>,
  refusalFields: Readonly<Record<string, string>> = {},
) {
  const failure = failureOf(err);
  const about = failure ? refusalFields[failure.code] : undefined;
  if (about !== undefined) {
    [...fields.values()].find((f) => f.issueKey === about)?.show(messageOf(err).text);
    return;
  }
  if (failure?.code !== "VALIDATION_FAILED") return;
  for (const issue of issuesIn(failure.details)) {
    const last = issue.path
      .split(".")
      .filter((p) => !/^\d+$/.test(p))
      .at(-1);
    const field = [...fields.values()].find((f) => f.issueKey === last);
    field?.show(issueSentence(issue, field.subject));
  }
}

/** "Password (12 to 256 characters)" → "The password"; "URL (public https)" → "The URL". */
function subjectOf(label: string): string {
  const bare = label.replace(/\s*\(.*\)\s*$/, "").trim();
  if (/^your\b/i.test(bare)) return `Your ${bare.slice(5)}`;
  const lowered = /^[A-Z][a-z]/.test(bare) ? bare.charAt(0).toLowerCase() + bare.slice(1) : bare;
  return `The ${lowered}`;
}

/** What is wrong with a typed value, as a sentence, or null. */
function problemOf(
  input: HTMLInputElement | HTMLTextAreaElement,
  rules: {
    required: boolean;
    type: string;
    minLength?: number;
    maxLength?: number;
    min?: number;
    max?: number;
  },
  subject: string,
): string | null {
  const value = input.value;
  if (value === "") return rules.required ? `${subject} is empty: fill it in.` : null;
  if (input.validity.typeMismatch && rules.type === "email")
    return `${subject} is not an e-mail address; write it as name@example.com.`;
  if (input.validity.typeMismatch && rules.type === "url")
    return `${subject} is not a full address; write it as https://example.com/path.`;
  if (rules.type === "number") {
    const n = Number(value);
    if (!Number.isFinite(n) || input.validity.badInput) return `${subject} must be a number.`;
    if (rules.min !== undefined && n < rules.min) return `${subject} must be at least ${rules.min}.`;
    if (rules.max !== undefined && n > rules.max) return `${subject} must be at most ${rules.max}.`;
  }
  if (rules.minLength !== undefined && value.length < rules.minLength)
    return `${subject} must be at least ${rules.minLength} characters long.`;
  if (rules.maxLength !== undefined && value.length > rules.maxLength)
    return `${subject} must be at most ${rules.maxLength} characters long.`;
  return null;
}

/**
 * A labelled text field of an ActionForm (Mantine's TextInput, PasswordInput for passwords). Its
 * rules (required, the type's form, lengths, a number's bounds, `validate`) are checked when the
 * form is sent; what is wrong shows under it as a sentence, and goes once the value is right.
 */
export function Field({
  label,
  name,
  type = "text",
  required = true,
  defaultValue,
  autoComplete,
  description,
  placeholder,
  minLength,
  maxLength,
  min,
  max,
  validate,
  issueKey = name,
  subject = subjectOf(label),
  multiline = false,
}: {
  label: string;
  name: string;
  type?: string;
  required?: boolean;
  defaultValue?: string | number;
  autoComplete?: string;
  description?: ReactNode;
  placeholder?: string;
  minLength?: number;
  maxLength?: number;
  min?: number;
  max?: number;
  /** A check of the form's own (a sentence when the value is wrong, else null). */
  validate?: (value: string) => string | null;
  /** The last segment of the Cloud API's issue path for this field, when it is not `name`. */
  issueKey?: string;
  /** How sentences name the field ("The password"), when the label does not say it well. */
  subject?: string;
  /** Several lines (a JSON document, a schema): a Textarea in a monospace font. */
  multiline?: boolean;
}) {
  const form = useContext(FormFields);
  const input = useRef<HTMLInputElement>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  const [error, setError] = useState<string | null>(null);
  const key = useId();
  const check = () => {
    const el = input.current ?? area.current;
    if (!el) return null;
    const problem =
      problemOf(el, { required, type, minLength, maxLength, min, max }, subject) ??
      (el.value === "" ? null : (validate?.(el.value) ?? null));
    setError(problem);
    return problem;
  };
  // The form calls the latest check (its props may change between renders).
  const latest = useRef(check);
  latest.current = check;
  useEffect(() => {
    if (!form) return;
    form.set(key, {
      issueKey,
      subject,
      check: () => latest.current(),
      show: setError,
      focus: () => (input.current ?? area.current)?.focus(),
    });
    return () => void form.delete(key);
  }, [form, key, issueKey, subject]);
  const common = {
    ref: input,
    label,
    name,
    required,
    defaultValue,
    autoComplete,
    description,
    placeholder,
    error,
    // A sentence shown stays until the value is right.
    onChange: () => {
      if (error !== null) check();
    },
  };
  if (type === "password") {
    // Mantine's PasswordInput does not tie its description and error to the input (TextInput
    // does): the field says so itself, so a screen reader hears the sentence and "invalid".
    const described = [description ? `${key}-description` : null, error ? `${key}-error` : null].filter(
      (id) => id !== null,
    );
    return (
      <PasswordInput
        {...common}
        errorProps={{ id: `${key}-error` }}
        descriptionProps={{ id: `${key}-description` }}
        aria-invalid={error ? true : undefined}
        aria-describedby={described.length ? described.join(" ") : undefined}
        visibilityToggleButtonProps={{ "aria-label": "Show the characters typed" }}
      />
    );
  }
  if (multiline) {
    const { ref: _input, ...rest } = common;
    return <Textarea {...rest} ref={area} autosize minRows={4} maxRows={16} ff="monospace" />;
  }
  return <TextInput {...common} type={type} min={min} max={max} />;
}

export const field = (data: FormData, name: string) => String(data.get(name) ?? "");

/** A form's choice among the wire's values (a select's option): checked against them, never cast. */
export function choice<T extends string>(data: FormData, name: string, values: readonly T[]): T {
  const value = field(data, name);
  const known = values.find((v) => v === value);
  if (known === undefined)
    throw new DashboardError("INVALID_INPUT", `${name} is not one of ${values.join(", ")}`);
  return known;
}

/** Every checked choice of a group of checkboxes, each checked against the wire's values. */
export const choices = <T extends string>(data: FormData, name: string, values: readonly T[]): T[] =>
  data.getAll(name).map((v) => {
    const known = values.find((x) => x === String(v));
    if (known === undefined)
      throw new DashboardError("INVALID_INPUT", `${name} is not one of ${values.join(", ")}`);
    return known;
  });

/** JSON a person typed that must be an object (tool arguments, a document): checked, not cast. */
export const isJsonObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The JSON object a person typed (an identity document, a schema), or null when it is not one. */
export function jsonObjectIn(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return isJsonObject(v) ? v : null;
  } catch {
    return null;
  }
}
