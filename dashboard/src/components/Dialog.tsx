import { Modal } from "@mantine/core";
import { useEffect, useRef, type ReactNode } from "react";

/**
 * A modal dialog (Mantine's Modal): focus moves into it and stays there, Escape closes it, and
 * focus returns to what opened it. For a yes/no choice use ConfirmDialog.
 */
export function Dialog({
  title,
  onClose,
  children,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
}) {
  // Mounted already open, so Mantine's focus return (which follows `opened` changing) never sees
  // the opener: it is kept here and focused again when the dialog goes, unless focus moved on.
  const opener = useRef<Element | null>(document.activeElement);
  useEffect(
    () => () => {
      const el = opener.current;
      setTimeout(() => {
        const now = document.activeElement;
        if (el instanceof HTMLElement && el.isConnected && (now === null || now === document.body))
          el.focus();
      }, 0);
    },
    [],
  );
  return (
    <Modal opened onClose={onClose} title={title} centered size="lg">
      {children}
    </Modal>
  );
}
