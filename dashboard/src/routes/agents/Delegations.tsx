import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { agentKeys, delegationsApi } from "../../api/agents.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { Loaded } from "../../components/Loading.js";
import { signDelegationHere, signRevocationHere } from "../../crypto/principal-signing.js";
import { usePrincipal } from "../principal/PrincipalPage.js";

/** Delegations of the agent, granted and revoked with the principal's key held in this browser. */
export function Delegations({
  orgId,
  agentId,
  mayAdminister,
}: {
  orgId: string;
  agentId: string;
  mayAdminister: boolean;
}) {
  const queryClient = useQueryClient();
  const principal = usePrincipal(orgId);
  const delegations = useQuery(delegationsApi.listQuery(orgId, agentId));
  const [error, setError] = useState<unknown>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: agentKeys.delegations(agentId) });
  const kid = principal.data?.principal?.kid;
  return (
    <section>
      <h2>Delegations</h2>
      <Loaded query={delegations}>
        {(page) =>
          page.items.length === 0 ? (
            <p className="muted">No delegation: every call of this agent is refused NO_DELEGATION.</p>
          ) : (
            <ul data-testid="delegations">
              {page.items.map((d) => (
                <li key={d.id}>
                  <code>{d.permissions.join(", ")}</code> until {new Date(d.expires_at).toLocaleString()} —{" "}
                  {String(d.state)}{" "}
                  {mayAdminister && kid && d.state === "active" && (
                    <button
                      type="button"
                      onClick={async () => {
                        setError(null);
                        try {
                          const revocation = await signRevocationHere(orgId, kid, d.object_id);
                          await delegationsApi.revoke(orgId, d.id, revocation);
                          await refresh();
                        } catch (err) {
                          setError(err);
                        }
                      }}
                    >
                      Revoke
                    </button>
                  )}
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
      <ErrorNotice error={error} />
      {mayAdminister &&
        (kid ? (
          <ActionForm
            submit="Sign and grant"
            onSubmit={async (d) => {
              const permissions = field(d, "permissions")
                .split(/[\s,]+/)
                .filter(Boolean);
              const days = Number(field(d, "days"));
              const delegation = await signDelegationHere(orgId, kid, {
                agent_id: agentId,
                permissions,
                expires_at: new Date(Date.now() + days * 86_400_000),
              });
              await delegationsApi.submit(orgId, agentId, delegation);
              await refresh();
            }}
          >
            <Field label="Permissions (actions or patterns such as payments.*)" name="permissions" />
            <Field label="Valid for (days)" name="days" type="number" defaultValue={30} />
          </ActionForm>
        ) : (
          <p className="muted">Create the organization principal first; it signs delegations.</p>
        ))}
    </section>
  );
}
