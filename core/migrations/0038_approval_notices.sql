-- Approvers are told by e-mail (issue 42; docs/dashboard.md "Approver e-mails"). The Gateway's
-- record statement is unchanged: a new approval request is inserted with notified_at null, and the
-- api processes' approval-notice worker (api/src/approval-notices/) claims such rows with
-- FOR UPDATE SKIP LOCKED, marks them notified and then mails each eligible approver once.
-- Requests recorded before this migration read as notified long ago ('epoch': adding a column with
-- a constant default rewrites nothing), so no one is mailed about old requests; dropping the
-- default right after makes every new row start null.
alter table approval_requests add column notified_at timestamptz default 'epoch';
alter table approval_requests alter column notified_at drop default;
create index approval_requests_unnotified on approval_requests (created_at) where notified_at is null;

-- Each person's choice on their account page ("E-mail me when an approval request waits for me").
alter table users add column approval_emails boolean not null default true;
