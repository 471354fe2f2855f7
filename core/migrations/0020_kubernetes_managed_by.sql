-- The Kubernetes custom resource ({kind, namespace, name}) that manages a
-- record, written when a bound operator writes the record and naming it; null
-- for records people manage. The dashboard shows it and warns that edits made
-- by hand are repaired by the operator.
alter table agents add column managed_by jsonb;
alter table policies add column managed_by jsonb;
alter table tools add column managed_by jsonb;
alter table mcp_servers add column managed_by jsonb;
alter table webhook_endpoints add column managed_by jsonb;
