import { useQuery, useQueryClient } from "@tanstack/react-query";
import { invitationsApi, memberKeys, membersApi } from "../../api/members.js";
import { roles, type Member } from "@countersign/protocol/wire";
import { ActionForm, choice, field } from "../../components/ActionForm.js";
import { Loaded } from "../../components/Loading.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { useCurrentOrganization } from "../../session/organization.js";
import { useState } from "react";

function RoleSelect({ orgId, member }: { orgId: string; member: Member }) {
  const queryClient = useQueryClient();
  const [error, setError] = useState<unknown>(null);
  return (
    <>
      <select
        aria-label={`Role of ${member.email}`}
        value={member.role}
        onChange={(e) => {
          setError(null);
          const role = roles.find((r) => r === e.target.value);
          if (!role) return;
          membersApi
            .setRole(orgId, member.user_id, role)
            .then(() => queryClient.invalidateQueries({ queryKey: memberKeys.members(orgId) }), setError);
        }}
      >
        {roles.map((r) => (
          <option key={r}>{r}</option>
        ))}
      </select>
      <ErrorNotice error={error} />
    </>
  );
}

export function MembersPage() {
  const { orgId } = useCurrentOrganization();
  const queryClient = useQueryClient();
  const members = useQuery(membersApi.listQuery(orgId));
  const invitations = useQuery(invitationsApi.listQuery(orgId));
  return (
    <main>
      <h1>Members</h1>
      <Loaded query={members}>
        {(page) => (
          <table>
            <thead>
              <tr>
                <th>E-mail</th>
                <th>Role</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((m) => (
                <tr key={m.user_id}>
                  <td>{m.email}</td>
                  <td>
                    <RoleSelect orgId={orgId} member={m} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Loaded>
      <h2>Invite someone</h2>
      <ActionForm
        submit="Send invitation"
        onSubmit={async (d) => {
          await invitationsApi.invite(orgId, field(d, "email"), choice(d, "role", roles));
          await queryClient.invalidateQueries({ queryKey: memberKeys.invitations(orgId) });
        }}
      >
        <label>
          E-mail
          <input name="email" type="email" required />
        </label>
        <label>
          Role
          <select name="role" defaultValue="approver">
            {roles.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
      </ActionForm>
      <h2>Open invitations</h2>
      <Loaded query={invitations}>
        {(page) =>
          page.items.length === 0 ? (
            <p className="muted">None.</p>
          ) : (
            <ul>
              {page.items.map((i) => (
                <li key={i.id}>
                  {i.email} as {i.role}, until {new Date(i.expires_at).toLocaleString()}{" "}
                  <button
                    type="button"
                    onClick={() =>
                      invitationsApi
                        .withdraw(orgId, i.id)
                        .then(() =>
                          queryClient.invalidateQueries({ queryKey: memberKeys.invitations(orgId) }),
                        )
                    }
                  >
                    Withdraw
                  </button>
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
    </main>
  );
}
