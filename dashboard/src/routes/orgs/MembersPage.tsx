import { Alert, NativeSelect, Stack, Text, Title } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { roles, type Invitation, type Member } from "@countersign/protocol/wire";
import { invitationsApi, memberKeys, membersApi } from "../../api/members.js";
import { ActionButton } from "../../components/ActionButton.js";
import { ActionForm, choice, Field, field } from "../../components/ActionForm.js";
import { DataTable } from "../../components/DataTable.js";
import { EmptyState } from "../../components/EmptyState.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { Loaded, LoadingLine } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { When } from "../../components/When.js";
import { useCurrentOrganization } from "../../session/organization.js";

/** A member's role, changed in place (the Cloud API refuses what the person may not grant). */
function RoleSelect({ orgId, member }: { orgId: string; member: Member }) {
  const queryClient = useQueryClient();
  const [error, setError] = useState<unknown>(null);
  return (
    <Stack gap={4}>
      <NativeSelect
        aria-label={`Role of ${member.email}`}
        size="xs"
        value={member.role}
        data={[...roles]}
        onChange={(e) => {
          setError(null);
          const role = roles.find((r) => r === e.currentTarget.value);
          if (!role) return;
          membersApi
            .setRole(orgId, member.user_id, role)
            .then(() => queryClient.invalidateQueries({ queryKey: memberKeys.members(orgId) }), setError);
        }}
      />
      <ErrorNotice error={error} />
    </Stack>
  );
}

/** Who belongs to the organization with which role, and who is invited (owners and admins). */
export function MembersPage() {
  const { orgId, org } = useCurrentOrganization();
  const queryClient = useQueryClient();
  const members = useQuery(membersApi.listQuery(orgId));
  const invitations = useQuery(invitationsApi.listQuery(orgId));
  const [sent, setSent] = useState<{ email: string; role: string } | null>(null);
  const refreshInvitations = () => queryClient.invalidateQueries({ queryKey: memberKeys.invitations(orgId) });
  if (!org) return <LoadingLine />;
  return (
    <Stack gap="lg">
      <PageHeader
        title="Members"
        description="Each person's role decides what they may do here; approvers, admins and owners can approve held calls once they bind a personal key."
      />
      <Loaded query={members}>
        {(page) => (
          <DataTable<Member>
            testId="members"
            caption="Members and their roles"
            rows={page.items}
            rowKey={(m) => m.user_id}
            defaultSort={{ key: "email", descending: false }}
            empty={<EmptyState title="No members yet.">Invite someone with the form below.</EmptyState>}
            columns={[
              { key: "email", header: "E-mail", render: (m) => m.email, sortValue: (m) => m.email },
              { key: "name", header: "Name", render: (m) => m.name ?? "—", sortValue: (m) => m.name },
              {
                key: "role",
                header: "Role",
                render: (m) => <RoleSelect orgId={orgId} member={m} />,
                sortValue: (m) => m.role,
              },
              {
                key: "joined",
                header: "Joined",
                align: "right",
                render: (m) => <When at={m.joined_at} />,
                sortValue: (m) => m.joined_at,
              },
            ]}
          />
        )}
      </Loaded>
      <Stack component="section" aria-labelledby="invite-heading" gap="sm" maw={480}>
        <Title order={2} size="h3" id="invite-heading">
          Invite someone
        </Title>
        <ActionForm
          submit="Send invitation"
          onSubmit={async (d) => {
            setSent(null);
            const email = field(d, "email");
            const role = choice(d, "role", roles);
            await invitationsApi.invite(orgId, email, role);
            setSent({ email, role });
            await refreshInvitations();
          }}
        >
          <Field label="E-mail" name="email" type="email" autoComplete="off" />
          <NativeSelect label="Role" name="role" defaultValue="approver" data={[...roles]} />
        </ActionForm>
        {sent && (
          <Alert color="green" variant="light" role="status" data-testid="notice">
            An invitation was mailed to {sent.email} as {sent.role}.
          </Alert>
        )}
      </Stack>
      <Stack component="section" aria-labelledby="invitations-heading" gap="sm">
        <Title order={2} size="h3" id="invitations-heading">
          Open invitations
        </Title>
        <Loaded query={invitations}>
          {(page) => (
            <DataTable<Invitation>
              testId="invitations"
              caption="Open invitations"
              rows={page.items}
              rowKey={(i) => i.id}
              empty={
                <EmptyState title="No open invitations.">
                  Invite someone with the form above; they join by the link in the e-mail.
                </EmptyState>
              }
              columns={[
                { key: "email", header: "E-mail", render: (i) => i.email, sortValue: (i) => i.email },
                { key: "role", header: "Role", render: (i) => i.role, sortValue: (i) => i.role },
                {
                  key: "expires",
                  header: "Valid until",
                  align: "right",
                  render: (i) => <When at={i.expires_at} />,
                  sortValue: (i) => i.expires_at,
                },
                {
                  key: "withdraw",
                  header: (
                    <Text span size="sm">
                      Withdraw
                    </Text>
                  ),
                  align: "right",
                  render: (i) => (
                    <ActionButton
                      size="xs"
                      variant="default"
                      onClick={() => invitationsApi.withdraw(orgId, i.id).then(refreshInvitations)}
                      confirm={{
                        title: `Withdraw the invitation of ${i.email}?`,
                        consequence: `The link mailed to ${i.email} stops working at once; invite them again to let them join.`,
                        confirmLabel: "Withdraw the invitation",
                      }}
                    >
                      Withdraw
                    </ActionButton>
                  ),
                },
              ]}
            />
          )}
        </Loaded>
      </Stack>
    </Stack>
  );
}
