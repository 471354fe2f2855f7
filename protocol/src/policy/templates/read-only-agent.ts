import type { PolicyTemplate } from "./types.js";

const readVerbs = "{get,list,read,search,describe,view}";

/** Allows actions whose name says they only read; everything else is denied by default. */
export const readOnlyAgent: PolicyTemplate = {
  id: "read-only-agent",
  name: "Read-only agent",
  description:
    "Allows actions named as reads (get, list, read, search, describe, view); denies everything else.",
  document: {
    revision: 1,
    default_effect: "deny",
    rules: [
      // Dotted names whose last part is a read verb, optionally with a suffix: crm.contacts.list, github.get_issue.
      {
        id: "read-actions",
        effect: "allow",
        conditions: [{ field: "action", op: "matches", pattern: `*.${readVerbs}{,_*}` }],
      },
      // Plain snake_case tool actions: get_issue, list_repos.
      {
        id: "read-prefixed-actions",
        effect: "allow",
        conditions: [{ field: "action", op: "matches", pattern: `${readVerbs}_*` }],
      },
    ],
  },
};
