-- A decision's action and receipt rows kept whole in their table's page
-- instead of partly in TOAST. PostgreSQL toasts a row longer than its table's
-- toast_tuple_target (2032 bytes by default): it compresses the largest values
-- and, when the row is still longer, moves them out of line, each into rows
-- of the TOAST table and entries of its index. A decision's receipt (its
-- bundle: ~6.5 kB, ~2.8 kB with lz4; a tools/call's ~9.3 kB, ~3.4 kB) and its
-- action (the explanations: ~2.7 kB) were both moved out of line: two more
-- heap rows and index entries per decision, the receipt's split in chunks,
-- about a tenth of PostgreSQL's CPU per decision (perf, `make bench`'s allow
-- path). Marking the values MAIN instead does not help: PostgreSQL then
-- moves the row's small text values (ids, digests) out of line, one TOAST
-- row each.
--
-- 4080 bytes is the longest row two of which fit one 8 kB page: a row up to
-- that stays as it is, a longer one is compressed first and kept inline when
-- its compressed form fits, as both kinds of receipt do. Only a row still
-- longer (a large upstream result, a long thread's bundle) goes to TOAST, as
-- before. Rows already stored stay as they are.
alter table protected_actions set (toast_tuple_target = 4080);
alter table receipts set (toast_tuple_target = 4080);
