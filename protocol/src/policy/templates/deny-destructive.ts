import type { PolicyTemplate } from "./types.js";

const destructive = "{delete,drop,destroy,remove,purge,truncate,wipe}";

/** Allows by default and denies actions named as destructive, in dotted or snake_case form. */
export const denyDestructiveActions: PolicyTemplate = {
  id: "deny-destructive-actions",
  name: "Deny destructive actions",
  description:
    "Allows everything except actions named as destructive (delete, drop, destroy, remove, purge, truncate, wipe).",
  document: {
    revision: 1,
    default_effect: "allow",
    rules: [
      {
        id: "destructive-actions",
        effect: "deny",
        conditions: [{ field: "action", op: "matches", pattern: `*.${destructive}{,_*}` }],
      },
      {
        id: "destructive-prefixed-actions",
        effect: "deny",
        conditions: [{ field: "action", op: "matches", pattern: `${destructive}_*` }],
      },
    ],
  },
};
