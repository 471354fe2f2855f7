import { useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "react-router";
import { api } from "../../api/client.js";
import type { Organization } from "../../api/types.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";

export function NewOrganizationPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return (
    <main>
      <h1>Create an organization</h1>
      <p>You become its owner. Next you create its principal, the key that signs agents' delegations.</p>
      <ActionForm
        submit="Create"
        onSubmit={async (d) => {
          const { organization } = await api.post<{ organization: Organization }>("/orgs", {
            name: field(d, "name"),
          });
          await queryClient.invalidateQueries({ queryKey: ["orgs"] });
          navigate(`/orgs/${organization.id}/principal`);
        }}
      >
        <Field label="Name" name="name" />
      </ActionForm>
    </main>
  );
}
