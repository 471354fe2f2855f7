-- The decision context looks up the organization's newest principal among
-- the active and equivocated ones; identities_org_kind_idx covers active
-- rows only, so that lookup scanned every identity of every organization
-- (people's, servers', Gateways') on each decision.
create index identities_principal_idx on identities (organization_id, created_at desc)
  where kind = 'principal' and status in ('active', 'equivocated');
