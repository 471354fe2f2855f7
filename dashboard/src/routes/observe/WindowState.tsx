import type { ObserveWindow } from "@countersign/protocol/wire";
import { StatusBadge } from "../../components/StatusBadge.js";

/** Open (the observe stage's colour) or ended, with why it ended: "ended (expired)". */
export function WindowState({ window: w }: { window: ObserveWindow }) {
  return w.state === "open" ? (
    <StatusBadge status="observe" label="open" />
  ) : (
    <StatusBadge status="ended" label={`ended (${w.end_reason?.replace(/_/g, " ") ?? "ended"})`} />
  );
}
