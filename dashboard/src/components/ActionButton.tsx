import { Button, Stack, type ButtonProps } from "@mantine/core";
import { useState, type ReactNode } from "react";
import { ConfirmDialog } from "./ConfirmDialog.js";
import { RefusalNotice } from "./RefusalNotice.js";

/** A button that runs one request, shows it is busy and shows its refusal. */
export function ActionButton({
  onClick,
  children,
  confirm,
  ...button
}: {
  onClick: () => Promise<unknown>;
  children: ReactNode;
  /**
   * For what cannot be undone: the consequence the person reads first in a dialog, whose confirm
   * button repeats the action's label.
   */
  confirm?: { title: string; consequence: ReactNode; confirmLabel: string };
} & Pick<ButtonProps, "color" | "variant" | "size">) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [asking, setAsking] = useState(false);
  const run = async () => {
    setError(null);
    setBusy(true);
    try {
      await onClick();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack gap={4} align="flex-start">
      <Button loading={busy} onClick={() => (confirm ? setAsking(true) : void run())} {...button}>
        {children}
      </Button>
      {confirm && (
        <ConfirmDialog
          opened={asking}
          title={confirm.title}
          consequence={confirm.consequence}
          confirmLabel={confirm.confirmLabel}
          onClose={() => setAsking(false)}
          onConfirm={onClick}
        />
      )}
      <RefusalNotice error={error} />
    </Stack>
  );
}
