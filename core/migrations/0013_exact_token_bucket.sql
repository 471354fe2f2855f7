-- The per-key token bucket exact under concurrency. take_tokens of 0003 read
-- the clock before waiting for the bucket's row lock: a call that waited then
-- wrote an older refilled_at over a newer one, and the next call was credited
-- the same time again (about twice the allowance at 10 connections). Here the
-- row is locked first and the clock read after, and refilled_at never moves
-- back, so every second of refill is credited once, whichever replica asks.
create or replace function take_tokens(p_key uuid, p_cost integer, p_burst integer, p_rate double precision)
returns double precision
language plpgsql as $$
declare
  t double precision;
  since timestamptz;
  ts timestamptz;
  wait double precision := 0;
begin
  select tokens, refilled_at into t, since from rate_limit_buckets where api_key_id = p_key for update;
  if not found then
    insert into rate_limit_buckets (api_key_id, tokens, refilled_at) values (p_key, p_burst, clock_timestamp())
    on conflict (api_key_id) do nothing;
    select tokens, refilled_at into t, since from rate_limit_buckets where api_key_id = p_key for update;
  end if;
  ts := greatest(clock_timestamp(), since);
  t := least(p_burst, t + extract(epoch from ts - since) * p_rate);
  if t >= p_cost then
    t := t - p_cost;
  else
    wait := (p_cost - t) / p_rate;
  end if;
  update rate_limit_buckets set tokens = t, refilled_at = ts where api_key_id = p_key;
  update api_keys set last_used_at = ts
   where id = p_key and (last_used_at is null or last_used_at < ts - interval '1 minute');
  return wait;
end
$$;
