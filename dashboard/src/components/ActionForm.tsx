import { useState, type FormEvent, type ReactNode } from "react";
import { RefusalNotice } from "./RefusalNotice.js";
import { DashboardError } from "../api/errors.js";

/** A form that runs one action, shows its error, and disables itself while it runs. */
export function ActionForm({
  onSubmit,
  submit,
  children,
  done,
}: {
  onSubmit: (data: FormData) => Promise<void>;
  submit: string;
  children?: ReactNode;
  done?: ReactNode;
}) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [finished, setFinished] = useState(false);
  async function handle(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      await onSubmit(new FormData(e.currentTarget));
      setFinished(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  if (finished && done) return <>{done}</>;
  return (
    <form onSubmit={handle}>
      {children}
      <button type="submit" disabled={busy}>
        {submit}
      </button>
      <RefusalNotice error={error} />
    </form>
  );
}

export function Field({
  label,
  name,
  type = "text",
  required = true,
  defaultValue,
  autoComplete,
}: {
  label: string;
  name: string;
  type?: string;
  required?: boolean;
  defaultValue?: string | number;
  autoComplete?: string;
}) {
  return (
    <label>
      {label}
      <input
        name={name}
        type={type}
        required={required}
        defaultValue={defaultValue}
        autoComplete={autoComplete}
      />
    </label>
  );
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
