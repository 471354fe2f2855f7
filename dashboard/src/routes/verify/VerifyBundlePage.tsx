import { Anchor, Container, FileInput, Stack, Text, Title } from "@mantine/core";
import { useState } from "react";
import { Link } from "react-router";
import { checkBundleBytes, type BundleCheck } from "../../crypto/bundle-check.js";
import { LocalVerification } from "../receipts/LocalVerification.js";

/**
 * Any receipt bundle file checked in this browser, with no call to any server and no sign-in: a
 * page outside the shell, so its Container is the page's main landmark.
 */
export function VerifyBundlePage() {
  const [check, setCheck] = useState<BundleCheck | null>(null);
  return (
    <Container component="main" size="sm" py="xl" id="content">
      <Stack gap="lg">
        <Stack gap={4}>
          <Title order={1} size="h2">
            Verify a receipt bundle
          </Title>
          <Text c="dimmed" size="sm">
            The file is checked here, in this browser, with the same evidence code the CLI uses (
            <Text span ff="monospace" size="sm">
              countersign verify
            </Text>
            ). Nothing is sent anywhere, and no sign-in is needed.
          </Text>
        </Stack>
        <FileInput
          label="Bundle file (.svcbundle)"
          description="A receipt's bundle as downloaded from a receipt's page or the Cloud API."
          placeholder="Choose a file"
          clearable
          onChange={async (f) => setCheck(f ? checkBundleBytes(new Uint8Array(await f.arrayBuffer())) : null)}
        />
        {check && <LocalVerification check={check} />}
        <Text size="sm" c="dimmed">
          <Anchor component={Link} to="/">
            Back to the dashboard
          </Anchor>
        </Text>
      </Stack>
    </Container>
  );
}
