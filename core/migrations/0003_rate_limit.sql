-- Per-key token bucket (SPEC 8.2) taken in one round trip by any Gateway
-- replica: refill by elapsed time, take `cost` tokens when there are enough.
-- Returns 0 when taken, else the seconds until enough tokens exist. Also
-- touches the key's last-used time, at most once a minute (SPEC 2.2).
create function take_tokens(p_key uuid, p_cost integer, p_burst integer, p_rate double precision)
returns double precision
language plpgsql as $$
declare
  t double precision;
  ts timestamptz := clock_timestamp();
begin
  insert into rate_limit_buckets as b (api_key_id, tokens, refilled_at) values (p_key, p_burst, ts)
  on conflict (api_key_id) do update
    set tokens = least(p_burst, b.tokens + greatest(0, extract(epoch from ts - b.refilled_at)) * p_rate),
        refilled_at = ts
  returning tokens into t;
  update api_keys set last_used_at = ts
   where id = p_key and (last_used_at is null or last_used_at < ts - interval '1 minute');
  if t >= p_cost then
    update rate_limit_buckets set tokens = t - p_cost where api_key_id = p_key;
    return 0;
  end if;
  return (p_cost - t) / p_rate;
end
$$;
