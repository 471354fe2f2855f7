-- The per-key token bucket is taken by the Gateway's admission statement
-- itself (core/src/decision/admission.ts), one INSERT .. ON CONFLICT DO
-- UPDATE whose new values are computed after the row's lock is held (the
-- exactness of 0013: the clock is read after the wait, refilled_at never
-- moves back), instead of a plpgsql function running three statements.
-- `wait` is the answer of the bucket's last take: 0 when the tokens were
-- taken, else the seconds until there are enough.
alter table rate_limit_buckets add column wait double precision not null default 0;
drop function take_tokens(uuid, integer, integer, double precision);
