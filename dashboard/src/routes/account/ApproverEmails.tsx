import { Paper, Stack, Switch, Text, Title } from "@mantine/core";
import { useState } from "react";
import { preferencesApi } from "../../api/me.js";
import { RefusalNotice } from "../../components/RefusalNotice.js";
import { useSession, useSignedIn } from "../../session/session.js";

/**
 * Whether approval requests waiting for this person are e-mailed to them (docs/dashboard.md
 * "Approver e-mails"). The switch shows the stored choice: it moves once the Cloud API took it.
 */
export function ApproverEmails() {
  const session = useSignedIn();
  const { reload } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState<boolean | null>(null);
  const on = session.user.approval_emails;
  const change = async (next: boolean) => {
    setBusy(true);
    setError(null);
    setSaved(null);
    try {
      await preferencesApi.update({ approval_emails: next });
      await reload();
      setSaved(next);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Paper withBorder p="lg" component="section" aria-labelledby="approver-emails">
      <Stack gap="sm">
        <Title order={2} size="h3" id="approver-emails">
          Approver e-mails
        </Title>
        <Switch
          label="E-mail me when an approval request waits for me"
          description="One e-mail per request you may decide, naming the agent, the tool, the amount and when it expires, with a link to it. Never the call's arguments."
          checked={on}
          disabled={busy}
          onChange={(e) => void change(e.currentTarget.checked)}
          data-testid="approval-emails"
        />
        {saved !== null && (
          <Text role="status" size="sm">
            {saved
              ? "Saved: approval requests that wait for you are e-mailed to you."
              : "Saved: you get no e-mail about approval requests; they wait on the Approvals page."}
          </Text>
        )}
        <RefusalNotice error={error} />
      </Stack>
    </Paper>
  );
}
