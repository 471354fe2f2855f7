import { useState } from "react";

/** A secret shown this once (a gateway key), with a copy button. */
export function CopyOnce({ label, secret }: { label: string; secret: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="secret" role="status">
      <p>
        <strong>{label}</strong> It is shown only now; store it where the agent reads it.
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
