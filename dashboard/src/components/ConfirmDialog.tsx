import { Button, Group, Modal, Stack, Text } from "@mantine/core";
import { useState, type ReactNode } from "react";
import { RefusalNotice } from "./RefusalNotice.js";

/**
 * A confirmation that leads with the consequence ("The agent stops at once…"), then the action's
 * own words on the button; the refusal, if any, stays in the dialog next to the choice.
 */
export function ConfirmDialog({
  opened,
  title,
  consequence,
  confirmLabel,
  danger = true,
  onConfirm,
  onClose,
  children,
}: {
  opened: boolean;
  title: string;
  consequence: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
  children?: ReactNode;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered>
      <Stack gap="md">
        <Text fw={500}>{consequence}</Text>
        {children}
        <RefusalNotice error={error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button
            color={danger ? "red" : undefined}
            loading={busy}
            onClick={async () => {
              setBusy(true);
              setError(null);
              try {
                await onConfirm();
                onClose();
              } catch (err) {
                setError(err);
              } finally {
                setBusy(false);
              }
            }}
          >
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
