import { Alert, Anchor, Box, Button, Code, Group, Paper, Stack, Text, Title } from "@mantine/core";
import { IconCheck, IconX } from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useParams } from "react-router";
import { approvalKeys, approvalsApi } from "../../api/approvals.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { Amount } from "../../components/Amount.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { Facts } from "../../components/Facts.js";
import { Loaded } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { StatusBadge } from "../../components/StatusBadge.js";
import { When } from "../../components/When.js";
import { CallArguments } from "./CallArguments.js";
import { proposalOf, signDecision, type AnsweredApproval } from "../../crypto/approval-signing.js";
import { personalKeys } from "../../crypto/personal-key.js";
import { useSignedIn } from "../../session/session.js";

/** Keys and digests break anywhere rather than run off the page. */
const wrapAnywhere = { overflowWrap: "anywhere" } as const;

/**
 * One request with the exact call it would allow, decided with the person's key. It is read once
 * (and again after a decision): what the person approves is what they read, and a decision made
 * meanwhile by someone else comes back as ALREADY_DECIDED rather than changing under their cursor.
 */
export function ApprovalPage() {
  const { orgId, org } = useCurrentOrganization();
  const { approvalId = "" } = useParams();
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const request = useQuery(approvalsApi.query(orgId, approvalId));
  const mine = useQuery({
    queryKey: ["personal-keys", session.user.id],
    queryFn: () => personalKeys(session.user.id),
    retry: false,
  });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const mayDecide = org ? can.decideApprovals(org.role) : false;

  async function decide(a: AnsweredApproval, type: "APPROVAL" | "REJECTION") {
    setBusy(true);
    setError(null);
    try {
      const decision = await signDecision(session.user.id, a, type);
      await approvalsApi.decide(orgId, a.id, decision);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
      await queryClient.invalidateQueries({ queryKey: approvalKeys.one(approvalId) });
      await queryClient.invalidateQueries({ queryKey: approvalKeys.pending(orgId) });
    }
  }

  return (
    <Loaded query={request}>
      {({ approval: a }) => {
        const call = proposalOf(a)?.body.payload.call;
        const expired =
          a.status === "expired" || (a.status === "pending" && Date.parse(a.expires_at) <= Date.now());
        const heldKid = mine.data?.find((k) => a.approver_kids.includes(k.kid))?.kid;
        const agent = a.action?.agent?.name ?? "An agent";
        const tool = call?.tool ?? a.action?.tool;
        return (
          <Stack gap="lg">
            <PageHeader
              title={`${agent} asks to run ${tool}`}
              description="Read the exact call below: your decision is signed with your key in this browser and covers only this call."
              badge={<StatusBadge status={a.status} testId="approval-status" />}
            />
            <Box data-testid="call-details">
              <Facts
                items={[
                  { term: "Tool", value: tool },
                  { term: "Action", value: a.action?.action },
                  {
                    term: "Amount",
                    testId: "call-amount",
                    value: a.action?.amount ? (
                      <Amount amount={a.action.amount} />
                    ) : (
                      "none (the tool maps no amount)"
                    ),
                  },
                  {
                    term: "Arguments digest",
                    value: (
                      <Code style={wrapAnywhere}>{call?.arguments_digest ?? a.action?.arguments_digest}</Code>
                    ),
                  },
                  {
                    term: "Policy",
                    value: (
                      <>
                        version {String(a.policy?.version ?? "?")}, rule {a.policy?.rule_id ?? "default"}{" "}
                        <Code style={wrapAnywhere}>{a.policy?.digest}</Code>
                      </>
                    ),
                  },
                  { term: "Requested", value: <When at={a.created_at} /> },
                  { term: "Expires", value: <When at={a.expires_at} /> },
                  {
                    term: "Who may approve",
                    value: (
                      <>
                        roles {a.roles.join(", ")}; {a.approver_count} approval needed; keys:{" "}
                        {a.approver_kids.map((k) => (
                          <Code key={k} mr={4} style={wrapAnywhere}>
                            {k === heldKid ? `${k} (yours, here)` : k}
                          </Code>
                        ))}
                      </>
                    ),
                  },
                  {
                    term: "Protected action",
                    value: (
                      <Anchor component={Link} to={orgPath(orgId, `/actions/${a.protected_action_id}`)}>
                        Its state and timeline
                      </Anchor>
                    ),
                  },
                ]}
              />
            </Box>
            <Stack gap="xs">
              <Title order={2} size="h4">
                The call's arguments
              </Title>
              <CallArguments text={a.arguments ?? null} signedDigest={call?.arguments_digest} />
            </Stack>
            <Stack gap="xs">
              <Title order={2} size="h4">
                Decision
              </Title>
              {a.status !== "pending" ? (
                <Text role="status">This request is {a.status}; it can no longer be decided.</Text>
              ) : expired ? (
                <Text role="status" data-code="EXPIRED">
                  This request has expired; the agent must ask again.
                </Text>
              ) : a.approvers_left === 0 ? (
                <Alert color="orange" data-testid="no-one-can-decide" data-code="NO_APPROVERS">
                  No one can decide this request any more: none of the keys it was made for is still bound to
                  a member with the role {a.roles.join(", ")}. A key bound since counts only for requests made
                  after it, so this one expires on {new Date(a.expires_at).toLocaleString()}; the agent then
                  asks again and is held for the keys bound now.
                </Alert>
              ) : !mayDecide ? (
                <Text c="dimmed">Your role does not decide approvals.</Text>
              ) : (
                <Paper withBorder p="md" maw={720}>
                  <Stack gap="sm">
                    {!heldKid && (
                      // A note, not an alert: the refusal of a click is the alert.
                      <Alert color="yellow" role="note" data-code="IDENTITY_MISSING">
                        None of your keys in this browser is among this request's approvers: bind a key under{" "}
                        <Anchor component={Link} to="/account">
                          Your account
                        </Anchor>
                        ; it counts for requests made after it is bound.
                      </Alert>
                    )}
                    <Text size="sm" data-testid="decision-consequence">
                      <strong>Approve</strong> lets {agent} run {tool}
                      {a.action?.amount
                        ? ` for ${a.action.amount.value} ${a.action.amount.currency}`
                        : ""}{" "}
                      once, with exactly these arguments. <strong>Reject</strong> refuses it for good: the
                      agent is told, and a closure receipt is issued. Either decision is final and signed with
                      your key.
                    </Text>
                    <Group gap="sm">
                      {/* Filled and light: apart by more than colour; "light" keeps its contrast in both schemes. */}
                      <Button
                        leftSection={<IconCheck size={16} aria-hidden />}
                        loading={busy}
                        onClick={() => decide(a, "APPROVAL")}
                      >
                        Approve
                      </Button>
                      <Button
                        color="red"
                        variant="light"
                        leftSection={<IconX size={16} aria-hidden />}
                        loading={busy}
                        onClick={() => decide(a, "REJECTION")}
                      >
                        Reject
                      </Button>
                    </Group>
                  </Stack>
                </Paper>
              )}
              <ErrorNotice error={error} />
            </Stack>
          </Stack>
        );
      }}
    </Loaded>
  );
}
