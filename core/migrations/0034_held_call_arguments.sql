-- The arguments of a call held for a person's approval, as the RFC 8785 text
-- whose digest the TASK signs (`arguments_digest`): the approver reads the
-- exact call they sign for (docs/dashboard.md "Approvals"). Written only
-- for held calls, shown only to a signed-in person whose role may decide the
-- request, cleared by retention with the action's other call data
-- (core/src/actions/retention.ts clears the column named `arguments`).
alter table protected_actions add column arguments text;
