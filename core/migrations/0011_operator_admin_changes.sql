-- An owner may let a bound operator (role admin) make the changes SPEC 4.4 reserves for "Admins,
-- signed in": assigning or switching an agent's policy, enabling or authorizing a tool, changing
-- what an enabled tool is bound to. Off unless the owner says so when binding (docs/access.md).
alter table operator_bindings add column allow_admin_changes boolean not null default false;
