import { Anchor, Code, Paper, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { actionKeys, actionsApi } from "../../api/actions.js";
import { approvalsApi } from "../../api/approvals.js";
import { identitiesApi } from "../../api/me.js";
import { receiptsApi } from "../../api/receipts.js";
import type { Action } from "@countersign/protocol/wire";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { useSignedIn } from "../../session/session.js";
import { ActionButton } from "../../components/ActionButton.js";
import { Amount } from "../../components/Amount.js";
import { Facts } from "../../components/Facts.js";
import { JsonBlock } from "../../components/JsonBlock.js";
import { Loaded, LoadingLine } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { StatusBadge } from "../../components/StatusBadge.js";
import { When } from "../../components/When.js";
import { signCancellationHere } from "../../crypto/principal-signing.js";
import { usePrincipal } from "../principal/PrincipalPage.js";
import { ActionTimeline } from "./ActionTimeline.js";
import { actionTimeline } from "./timeline.js";

/** Ids and digests break anywhere rather than run out of their card. */
const wrapAnywhere = { overflowWrap: "anywhere" } as const;

/** The policy's effect as the state word it leads to (theme/status.ts knows these). */
const effectWord = { allow: "allowed", require_approval: "require_approval", deny: "denied" } as const;

const openStatuses = new Set(["pending_approval", "approved", "authorized"]);
/** States another party may still move on: the page reads the action again while it is in one. */
const movingStatuses = new Set(["pending_approval", "approved", "authorized", "executing"]);

/** The TASK an action's thread starts with: from its approval request, or from its receipt. */
async function taskOf(orgId: string, a: Action): Promise<string> {
  const task = a.approval_request_id
    ? (await approvalsApi.get(orgId, a.approval_request_id)).approval.task_object_id
    : null;
  if (task) return task;
  if (a.receipt_id) return (await receiptsApi.get(orgId, a.receipt_id)).receipt.thread_id;
  throw new Error("this action has no approval request or receipt naming its TASK");
}

/**
 * The transitions of one action, from its approval request, its receipts and the newest receipt's
 * signed chain, each read again whenever the action changes (its `updated_at` is in their keys).
 */
function useTimeline(orgId: string, a: Action | undefined) {
  const session = useSignedIn();
  const version = a?.updated_at ?? "";
  const approval = useQuery({
    queryKey: ["approval", a?.approval_request_id, version],
    queryFn: () => approvalsApi.get(orgId, a!.approval_request_id!),
    enabled: !!a?.approval_request_id,
  });
  const receipts = useQuery({ ...receiptsApi.ofActionQuery(orgId, a?.id ?? "", version), enabled: !!a });
  const newestId =
    a?.receipt_id ??
    [...(receipts.data?.items ?? [])].sort((x, y) => y.created_at.localeCompare(x.created_at))[0]?.id;
  const newest = useQuery({
    queryKey: ["receipt", newestId, version],
    queryFn: () => receiptsApi.get(orgId, newestId!),
    enabled: !!newestId,
    // A receipt whose evidence retention deleted answers 410: the timeline goes on without its chain.
    retry: false,
  });
  const mine = useQuery({ queryKey: ["identities", session.user.id], queryFn: identitiesApi.list });
  if (!a) return null;
  const waiting =
    (a.approval_request_id && approval.isPending) || receipts.isPending || (newestId && newest.isPending);
  if (waiting) return null;
  return actionTimeline({
    action: a,
    approval: approval.data?.approval ?? null,
    receipts: receipts.data?.items ?? [],
    newest: newest.data?.receipt ?? null,
    ownKids: new Set(mine.data?.items.filter((i) => i.status === "active").map((i) => i.kid)),
  });
}

export function ActionPage() {
  const { orgId, org } = useCurrentOrganization();
  const { actionId = "" } = useParams();
  const queryClient = useQueryClient();
  const principal = usePrincipal(orgId);
  const action = useQuery({
    ...actionsApi.query(orgId, actionId),
    refetchInterval: (q) => (movingStatuses.has(q.state.data?.action.status ?? "") ? 4000 : false),
  });
  const timeline = useTimeline(orgId, action.data?.action);
  const kid = principal.data?.principal?.kid;
  return (
    <Loaded query={action}>
      {({ action: a }) => (
        <Stack gap="lg">
          <PageHeader
            title={`${a.agent?.name}: ${a.tool}`}
            description="One call an agent made: what was decided, by whom, and what happened since."
            badge={<StatusBadge status={a.status} testId="action-status" />}
            actions={
              org &&
              can.administer(org.role) &&
              openStatuses.has(a.status) && (
                <ActionButton
                  color="red"
                  variant="light"
                  confirm={{
                    title: "Cancel this action?",
                    consequence: `${a.agent?.name} can no longer run ${a.tool} with this approval or authorization, and asking again with the same idempotency key is answered "cancelled". A closure receipt signed with the organization's principal key records it. This cannot be undone.`,
                    confirmLabel: "Cancel the action",
                  }}
                  onClick={async () => {
                    if (!kid) throw new Error("this organization has no principal");
                    const cancellation = await signCancellationHere(
                      orgId,
                      kid,
                      await taskOf(orgId, a),
                      "cancelled in the dashboard",
                    );
                    await actionsApi.cancel(orgId, a.id, cancellation);
                    await queryClient.invalidateQueries({ queryKey: actionKeys.one(actionId) });
                  }}
                >
                  Cancel this action (signed with the principal key)
                </ActionButton>
              )
            }
          />
          <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
            <Paper withBorder p="md">
              <Stack gap="sm">
                <Title order={2} size="h4">
                  The call
                </Title>
                <Facts
                  items={[
                    { term: "Agent", value: a.agent?.name },
                    { term: "Tool", value: a.tool },
                    { term: "Action", value: a.action },
                    { term: "Amount", value: <Amount amount={a.amount} /> },
                    {
                      term: "Arguments digest",
                      value: <Code style={wrapAnywhere}>{a.arguments_digest}</Code>,
                    },
                    { term: "Executed by", value: a.execution === "gateway" ? "the Gateway" : "the caller" },
                    { term: "Environment", value: a.environment },
                    { term: "Asked", value: <When at={a.created_at} /> },
                    {
                      term: "Approval request",
                      hidden: !a.approval_request_id,
                      value: (
                        <Anchor component={Link} to={orgPath(orgId, `/approvals/${a.approval_request_id}`)}>
                          The request and its arguments
                        </Anchor>
                      ),
                    },
                    {
                      term: "Receipt",
                      hidden: !a.receipt_id,
                      value: (
                        <Anchor
                          component={Link}
                          to={orgPath(orgId, `/receipts/${a.receipt_id}`)}
                          style={wrapAnywhere}
                        >
                          {a.receipt_id}
                        </Anchor>
                      ),
                    },
                  ]}
                />
              </Stack>
            </Paper>
            <Paper withBorder p="md">
              <Stack gap="sm">
                <Title order={2} size="h4">
                  What happened
                </Title>
                {timeline ? <ActionTimeline orgId={orgId} entries={timeline} /> : <LoadingLine />}
              </Stack>
            </Paper>
          </SimpleGrid>
          <Stack gap="sm">
            <Title order={2} size="h4">
              The decision
            </Title>
            <Facts
              items={[
                {
                  term: "Policy",
                  value: a.policy
                    ? `version ${a.policy.version ?? "?"}, rule ${a.policy.rule_id ?? "default"}`
                    : "none (decided before any policy was active)",
                },
                {
                  term: "Effect",
                  value: a.policy?.policy_effect ? (
                    <StatusBadge status={effectWord[a.policy.policy_effect]} />
                  ) : (
                    "—"
                  ),
                },
                { term: "Enforcement", value: a.policy?.enforcement ?? "—" },
                { term: "Decision code", value: a.decision_code ? <Code>{a.decision_code}</Code> : "—" },
                { term: "Error", hidden: !a.error_code, value: <Code>{a.error_code}</Code> },
              ]}
            />
            <Text size="sm" c="dimmed">
              The explanation as the service recorded it:
            </Text>
            <JsonBlock
              value={{ policy: a.policy, decision_code: a.decision_code, explanation: a.explanation }}
              label="Explanation"
            />
          </Stack>
        </Stack>
      )}
    </Loaded>
  );
}
