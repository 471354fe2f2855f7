import { useState } from "react";

/** A secret shown this once (a gateway key, a webhook signing secret), with a copy button. */
export function CopyOnce({
  label,
  secret,
  hint = "store it where the agent reads it.",
}: {
  label: string;
  secret: string;
  hint?: string;
}) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="secret" role="status">
      <p>
        <strong>{label}</strong> It is shown only now; {hint}
      </p>
      <code data-testid="secret">{secret}</code>{" "}
      <button
        type="button"
        onClick={() =>
          navigator.clipboard.writeText(secret).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? "Copied" : "Copy"}
      </button>
    </div>
  );
}
