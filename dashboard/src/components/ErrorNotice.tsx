import { messageOf } from "../api/errors.js";

/** An error as a person reads it, with its code for support. */
export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const { code, text } = messageOf(error);
  return (
    <p className="error" role="alert" data-code={code}>
      {text} <span className="code">({code})</span>
    </p>
  );
}
