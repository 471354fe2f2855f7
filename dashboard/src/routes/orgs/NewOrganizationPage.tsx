import { Stack } from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "react-router";
import { organizationKeys, organizationsApi } from "../../api/organizations.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { PageHeader } from "../../components/PageHeader.js";

/** A new organization: its creator becomes the owner and goes on to its principal. */
export function NewOrganizationPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return (
    <Stack maw={480}>
      <PageHeader
        title="Create an organization"
        description="You become its owner. Next you create its principal, the key that signs agents' delegations; the organization's overview then lists the first steps in order."
      />
      <ActionForm
        submit="Create"
        onSubmit={async (d) => {
          const { organization } = await organizationsApi.create({ name: field(d, "name") });
          await queryClient.invalidateQueries({ queryKey: organizationKeys.all });
          navigate(`/orgs/${organization.id}/principal`);
        }}
      >
        <Field label="Name" name="name" autoComplete="organization" maxLength={200} />
      </ActionForm>
    </Stack>
  );
}
