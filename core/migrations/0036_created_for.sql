-- The Kubernetes resource (its metadata.uid) a gateway key or a webhook endpoint was created for,
-- given by the operator on the create (?created_for=). A key or endpoint whose create answer was
-- lost (the operator killed between the create and the Secret that records it) is found again by
-- it: the operator revokes such a key, adopts such an endpoint, and removes both on delete
-- (docs/crds.md, "Creation, adoption and cleanup"). Null for everything people create.
alter table api_keys add column created_for text;
alter table webhook_endpoints add column created_for text;
create index api_keys_created_for on api_keys (organization_id, created_for) where created_for is not null;
create index webhook_endpoints_created_for on webhook_endpoints (organization_id, created_for)
  where created_for is not null;
