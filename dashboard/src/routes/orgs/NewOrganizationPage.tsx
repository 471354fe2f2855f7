import { useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "react-router";
import { organizationKeys, organizationsApi } from "../../api/organizations.js";
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
          const { organization } = await organizationsApi.create({ name: field(d, "name") });
          await queryClient.invalidateQueries({ queryKey: organizationKeys.all });
          navigate(`/orgs/${organization.id}/principal`);
        }}
      >
        <Field label="Name" name="name" />
      </ActionForm>
    </main>
  );
}
