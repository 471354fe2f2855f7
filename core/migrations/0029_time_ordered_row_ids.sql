-- Time-ordered row ids (RFC 9562 UUID version 7) for the tables written at
-- the rate of decisions. A random (version 4) primary key sends every insert
-- to a random leaf of its index: once the index is larger than what a
-- checkpoint interval touches, nearly every insert dirties a page not written
-- since the last checkpoint, and the WAL carries that whole page (a full-page
-- image, 8 kB). Version 7 ids start with the time in milliseconds, so new
-- keys land on the index's rightmost pages, as a serial would, while staying
-- unguessable (74 random bits) and mintable by any replica without a
-- round trip. The Gateway mints its own ids (core/src/store/row-id.ts); this
-- function is the default of the rows the database names itself.
-- test/bench/row-id-probe.ts measures the difference.
create function uuid_v7() returns uuid
language sql volatile parallel safe as $$
  select encode(
    set_bit(set_bit(
      overlay(uuid_send(gen_random_uuid())
              placing substring(int8send(floor(extract(epoch from clock_timestamp()) * 1000)::bigint) from 3)
              from 1 for 6),
      52, 1), 53, 1),
    'hex')::uuid
$$;

alter table events alter column id set default uuid_v7();
alter table webhook_deliveries alter column id set default uuid_v7();
