import { Modal } from "@mantine/core";
import type { ReactNode } from "react";

/**
 * A modal dialog (Mantine's Modal): focus moves into it and stays there, Escape closes it, and
 * focus returns to what opened it. For a yes/no choice use ConfirmDialog.
 */
export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  return (
    <Modal opened onClose={onClose} title={title} centered size="lg">
      {children}
    </Modal>
  );
}
