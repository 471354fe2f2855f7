import { Code, Paper, Stack, Text, Title } from "@mantine/core";
import { sessionApi } from "../../api/session.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { PageHeader } from "../../components/PageHeader.js";
import { useSignedIn } from "../../session/session.js";
import { ApproverEmails } from "./ApproverEmails.js";
import { PersonalIdentities } from "./PersonalIdentities.js";

/** The person's own account: the keys they approve with, approver e-mails, password, e-mail address. */
export function AccountPage() {
  const session = useSignedIn();
  return (
    <Stack gap="lg">
      <PageHeader
        title="Your account"
        description={
          <>
            Signed in as{" "}
            <Code component="strong" data-testid="account-email">
              {session.user.email}
            </Code>
          </>
        }
      />
      <PersonalIdentities />
      <ApproverEmails />
      <Paper withBorder p="lg" component="section" aria-labelledby="change-password">
        <Stack gap="sm" maw={480}>
          <Title order={2} size="h3" id="change-password">
            Change password
          </Title>
          <ActionForm
            submit="Change password"
            onSubmit={async (d) => {
              await sessionApi.changePassword(field(d, "current"), field(d, "new"));
            }}
            done={<Text role="status">Your password is changed; your other sessions were signed out.</Text>}
          >
            <Field label="Current password" name="current" type="password" autoComplete="current-password" />
            <Field label="New password" name="new" type="password" autoComplete="new-password" />
          </ActionForm>
        </Stack>
      </Paper>
      <Paper withBorder p="lg" component="section" aria-labelledby="change-email">
        <Stack gap="sm" maw={480}>
          <Title order={2} size="h3" id="change-email">
            Change e-mail address
          </Title>
          <ActionForm
            submit="Change e-mail"
            onSubmit={async (d) => {
              await sessionApi.changeEmail(field(d, "email"), field(d, "password"));
            }}
            done={
              <Text role="status">
                We sent a confirmation link to the new address, and a notice to the current one.
              </Text>
            }
          >
            <Field label="New e-mail" name="email" type="email" />
            <Field label="Password" name="password" type="password" autoComplete="current-password" />
          </ActionForm>
        </Stack>
      </Paper>
    </Stack>
  );
}
