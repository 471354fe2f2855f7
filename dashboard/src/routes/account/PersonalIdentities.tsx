import { Button, Code, FileButton, Group, Paper, Stack, Text, Title } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { identitiesApi } from "../../api/me.js";
import { ActionButton } from "../../components/ActionButton.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { Loaded } from "../../components/Loading.js";
import {
  bindNewPersonalKey,
  importPersonalKey,
  personalKeys,
  unbindPersonalKey,
} from "../../crypto/personal-key.js";
import { useSignedIn } from "../../session/session.js";
import { policyKeys } from "../../api/policies.js";

/** What the hidden file input is called: tests and screen readers find it by this label. */
const IMPORT_LABEL = "Or import a bound key from its file (PKCS#8 PEM)";

/** The person's bound keys (at most 5), which of them this browser holds, bind and unbind. */
export function PersonalIdentities() {
  const session = useSignedIn();
  const userId = session.user.id;
  const queryClient = useQueryClient();
  const identities = useQuery({
    queryKey: ["identities", userId],
    queryFn: identitiesApi.list,
  });
  const local = useQuery({
    queryKey: ["personal-keys", userId],
    queryFn: () => personalKeys(userId),
    retry: false,
  });
  const [error, setError] = useState<unknown>(null);
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ["identities", userId] }),
      queryClient.invalidateQueries({ queryKey: ["personal-keys", userId] }),
      // Whether anyone can approve a policy's held calls depends on the keys bound (NoApprovers).
      queryClient.invalidateQueries({ queryKey: policyKeys.everyStatus }),
    ]);
  const heldKids = new Set(local.data?.map((k) => k.kid) ?? []);
  const importFile = (file: File | null) => {
    if (!file) return;
    setError(null);
    file
      .text()
      .then((pem) => importPersonalKey(userId, pem))
      .then(refresh, setError);
  };
  return (
    <Paper withBorder p="lg" component="section" aria-labelledby="signing-keys">
      <Stack gap="sm">
        <Title order={2} size="h3" id="signing-keys">
          Your signing keys
        </Title>
        <Text size="sm" c="dimmed">
          Approvals are signed in this browser with a key that never leaves it. Bind a key in each browser you
          approve from (at most 5).
        </Text>
        <Loaded query={identities}>
          {({ items }) => {
            const active = items.filter((i) => i.status === "active");
            return active.length === 0 ? (
              <Text size="sm" c="dimmed" data-testid="no-identity">
                No key is bound yet. Make one in this browser with the button below.
              </Text>
            ) : (
              <Stack
                gap="xs"
                component="ul"
                data-testid="identities"
                p={0}
                m={0}
                style={{ listStyle: "none" }}
              >
                {active.map((i) => (
                  <Group component="li" key={i.kid} gap="sm" wrap="wrap">
                    <Code>{i.kid}</Code>
                    <Text size="sm" c={heldKids.has(i.kid) ? undefined : "dimmed"}>
                      {heldKids.has(i.kid) ? "in this browser" : "in another browser"}
                    </Text>
                    <ActionButton
                      variant="default"
                      size="xs"
                      onClick={() => unbindPersonalKey(userId, i.kid).then(refresh)}
                      confirm={{
                        title: "Unbind this key?",
                        consequence:
                          "Approvals can no longer be signed with this key, in any browser, and this browser forgets it. To approve here again, bind a new key.",
                        confirmLabel: "Unbind",
                      }}
                    >
                      Unbind
                    </ActionButton>
                  </Group>
                ))}
              </Stack>
            );
          }}
        </Loaded>
        {local.isError && <ErrorNotice error={local.error} />}
        <Group gap="sm">
          <Button
            onClick={() => {
              setError(null);
              bindNewPersonalKey(userId, session.user.name ?? session.user.email).then(refresh, setError);
            }}
          >
            Make and bind a key in this browser
          </Button>
          <FileButton
            onChange={importFile}
            accept=".pem,application/x-pem-file,text/plain"
            inputProps={{ "aria-label": IMPORT_LABEL }}
          >
            {(props) => (
              <Button variant="default" {...props}>
                Import a bound key from its file
              </Button>
            )}
          </FileButton>
        </Group>
        <Text size="xs" c="dimmed">
          A PKCS#8 PEM file, such as <Code>.data/demo-owner-key.pem</Code> of <Code>make run</Code>.
        </Text>
        <ErrorNotice error={error} />
      </Stack>
    </Paper>
  );
}
