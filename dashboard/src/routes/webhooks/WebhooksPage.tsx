import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { webhooksApi, webhookKeys } from "../../api/webhooks.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { CopyOnce } from "../../components/CopyOnce.js";
import { Loaded } from "../../components/Loading.js";
import { EventTypes, eventTypesOf } from "./EventTypes.js";

const SECRET_HINT = "the receiver checks every delivery's Service-Signature with it.";

/** The organization's webhook endpoints (owners, admins, developers) and the form to add one. */
export function WebhooksPage() {
  const { orgId, org } = useCurrentOrganization();
  const endpoints = useQuery({ queryKey: webhookKeys.all(orgId), queryFn: () => webhooksApi.list(orgId) });
  const [created, setCreated] = useState<{ id: string; secret: string } | null>(null);
  return (
    <main>
      <h1>Webhooks</h1>
      <Loaded query={endpoints}>
        {(page) =>
          page.items.length === 0 ? (
            <p className="muted">No endpoints yet.</p>
          ) : (
            <table data-testid="webhook-endpoints">
              <thead>
                <tr>
                  <th>URL</th>
                  <th>Enabled</th>
                  <th>Event types</th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((e) => (
                  <tr key={e.id}>
                    <td>
                      <Link to={orgPath(orgId, `/webhooks/${e.id}`)}>{e.url}</Link>
                      {e.description && <div className="muted">{e.description}</div>}
                    </td>
                    <td>{e.enabled ? "yes" : `no${e.disabled_reason ? ` (${e.disabled_reason})` : ""}`}</td>
                    <td>{e.event_types.join(", ")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
      {created && (
        <>
          <CopyOnce label="Signing secret of the new endpoint." secret={created.secret} hint={SECRET_HINT} />
          <Link to={orgPath(orgId, `/webhooks/${created.id}`)}>Open the new endpoint</Link>
        </>
      )}
      {org && can.manage(org.role) && <NewEndpoint orgId={orgId} onCreated={setCreated} />}
    </main>
  );
}

function NewEndpoint({
  orgId,
  onCreated,
}: {
  orgId: string;
  onCreated: (c: { id: string; secret: string }) => void;
}) {
  const queryClient = useQueryClient();
  return (
    <section>
      <h2>New endpoint</h2>
      <ActionForm
        submit="Add endpoint"
        onSubmit={async (d) => {
          const answer = await webhooksApi.create(orgId, {
            url: field(d, "url"),
            description: field(d, "description"),
            event_types: eventTypesOf(d),
          });
          onCreated({ id: answer.webhook.id, secret: answer.secret });
          await queryClient.invalidateQueries({ queryKey: webhookKeys.all(orgId) });
        }}
      >
        <Field label="URL (public https)" name="url" type="url" />
        <Field label="Description" name="description" required={false} />
        <EventTypes />
      </ActionForm>
    </section>
  );
}
