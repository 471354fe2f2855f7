import { useState, type ReactNode } from "react";
import { RefusalNotice } from "./RefusalNotice.js";

/** A button that runs one request, disables itself while it runs and shows its refusal. */
export function ActionButton({
  onClick,
  children,
  confirm,
}: {
  onClick: () => Promise<unknown>;
  children: ReactNode;
  /** A question the person answers first (a window.confirm), for what cannot be undone. */
  confirm?: string;
}) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <div className="action">
      <button
        type="button"
        disabled={busy}
        onClick={async () => {
          if (confirm && !window.confirm(confirm)) return;
          setError(null);
          setBusy(true);
          try {
            await onClick();
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        {children}
      </button>
      <RefusalNotice error={error} />
    </div>
  );
}
