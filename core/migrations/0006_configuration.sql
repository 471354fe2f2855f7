-- Configuration routes (issue 7): who authorized a tool's binding and when,
-- change times, MCP server status values, and the indexes the routes need.

-- The binding an owner or admin authorized (tools.authorized_binding, 0002),
-- by whom and when: the tool record shows it and the audit log names it.
alter table tools add column authorized_at timestamptz;
alter table tools add column authorized_by uuid references users (id) on delete set null;
alter table tools add column updated_at timestamptz not null default now();
create index tools_server_idx on tools (mcp_server_id);

alter table mcp_servers add column updated_at timestamptz not null default now();
alter table mcp_servers add constraint mcp_servers_status_check check (status in ('active', 'disabled'));

-- IN_USE (SPEC 7.2): does any recorded action name one of a server's tools.
create index protected_actions_tool_idx on protected_actions (tool_id) where tool_id is not null;
