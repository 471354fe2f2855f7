import { sha256Digest } from "@countersign/protocol/canonical";
import { Alert, Button, Code, Stack, Table, Text } from "@mantine/core";
import { useState } from "react";
import { COLLAPSED_CHARACTERS, indentJson, topLevelMembers } from "./call-arguments.js";

/** One argument's value: in full when short, else its start with how much more there is, expandable. */
function Value({ name, raw }: { name: string; raw: string }) {
  const [open, setOpen] = useState(false);
  const text = indentJson(raw);
  if (text.length <= COLLAPSED_CHARACTERS) return <Code block>{text}</Code>;
  return (
    <Stack gap={4} align="flex-start">
      <Code block data-collapsed={!open}>
        {open ? text : `${text.slice(0, COLLAPSED_CHARACTERS)}…`}
      </Code>
      <Button variant="subtle" size="compact-sm" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open
          ? `Collapse ${name}`
          : `Show all of ${name} (${text.length - COLLAPSED_CHARACTERS} more characters)`}
      </Button>
    </Stack>
  );
}

/**
 * The exact arguments of the held call, checked in this browser against the digest the Gateway
 * signed in the TASK (`arguments_digest`, restated by the PROPOSAL the person answers): what the
 * person reads is what they sign for, or the page says it is not.
 */
export function CallArguments({
  text,
  signedDigest,
}: {
  text: string | null;
  signedDigest: string | undefined;
}) {
  if (text === null)
    return (
      <Text c="dimmed" size="sm" data-testid="call-arguments" data-state="unavailable">
        The arguments are not available here: only the people who may decide this request see them, and only
        while it is kept. The digest above is what the call is bound to.
      </Text>
    );
  const matches = signedDigest !== undefined && sha256Digest(text) === signedDigest;
  const members = topLevelMembers(text);
  return (
    <Stack gap="sm" data-testid="call-arguments" data-state={matches ? "verified" : "mismatch"} maw={900}>
      {matches ? (
        <Alert color="green" role="note" p="xs">
          These are the exact arguments signed in the call's TASK (their digest matches).
        </Alert>
      ) : (
        <Alert color="red" data-code="DISCLOSURE_MISMATCH" p="xs">
          These arguments do not match the digest signed in the call's TASK: do not approve.
        </Alert>
      )}
      {members === null ? (
        <Value name="the arguments" raw={text} />
      ) : members.length === 0 ? (
        <Text c="dimmed" size="sm">
          The call has no arguments.
        </Text>
      ) : (
        <Table withTableBorder verticalSpacing={6} highlightOnHover={false}>
          <Table.Tbody>
            {members.map(([name, raw]) => (
              <Table.Tr key={name} data-argument={name}>
                <Table.Th scope="row" w={1} style={{ whiteSpace: "nowrap", verticalAlign: "top" }}>
                  <Code>{name}</Code>
                </Table.Th>
                <Table.Td>
                  <Value name={name} raw={raw} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
