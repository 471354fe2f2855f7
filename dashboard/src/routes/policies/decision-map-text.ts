import type { MapEntry, MapOutcome } from "@countersign/protocol/policy";

/** An amount band of the decision map in words: "over 100, under 1000 EUR". */
export const band = (a: MapEntry["amount"]) => {
  if (!a) return "any call (no amount)";
  const parts = [
    a.gt !== undefined && `over ${a.gt}`,
    a.gte !== undefined && a.lte !== a.gte && `from ${a.gte}`,
    a.gte !== undefined && a.lte === a.gte && `exactly ${a.gte}`,
    a.lt !== undefined && `under ${a.lt}`,
    a.lte !== undefined && a.lte !== a.gte && `up to ${a.lte}`,
  ].filter(Boolean);
  return `${parts.length ? parts.join(", ") : "any amount"} ${a.currency ?? "(other currencies)"}`;
};

export const outcomeText = (o: MapOutcome) =>
  `${o.effect.replace("_", " ")} by ${o.rule_id ?? "the default"}`;

/** The state word whose colour an outcome takes (theme/status.ts); "depends" when arguments decide. */
export const outcomeStatus = (e: MapEntry): string =>
  !e.decision
    ? "undetermined"
    : e.decision.effect === "allow"
      ? "allowed"
      : e.decision.effect === "deny"
        ? "denied"
        : "pending";
