-- The decision's large values (the receipt's bundle, signed objects, the
-- explanation, upstream results) compressed with lz4 instead of pglz when
-- PostgreSQL stores them compressed: pglz cost a measurable share of the
-- decision write's CPU for a ~6.5 KB bundle, lz4 compresses as well for JSON
-- at a fraction of the CPU. Values already stored keep their compression. A
-- PostgreSQL built without lz4 keeps pglz.
do $$
begin
  alter table receipts alter column bundle set compression lz4;
  alter table signed_objects alter column object set compression lz4;
  alter table protected_actions alter column explanation set compression lz4;
  alter table protected_actions alter column agent_explanation set compression lz4;
  alter table protected_actions alter column result set compression lz4;
  alter table events alter column data set compression lz4;
exception when feature_not_supported then
  null;
end
$$;
