import { Anchor, Button, Code, FileInput, Group, List, Stack, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useParams } from "react-router";
import type { ReceiptDetail } from "@countersign/protocol/wire";
import { receiptsApi } from "../../api/receipts.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { DataTable } from "../../components/DataTable.js";
import { EmptyState } from "../../components/EmptyState.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { Facts } from "../../components/Facts.js";
import { Loaded } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { StatusBadge } from "../../components/StatusBadge.js";
import { When } from "../../components/When.js";
import { checkBundleBytes, type BundleCheck } from "../../crypto/bundle-check.js";
import { LocalVerification } from "./LocalVerification.js";
import { VerificationChecks } from "./VerificationChecks.js";

type Participant = ReceiptDetail["participants"][number];
type Delegation = ReceiptDetail["delegations"][number];

/** A receipt: its chain, participants, delegations and checks; the bundle to download, and to verify here, offline. */
export function ReceiptPage() {
  const { orgId } = useCurrentOrganization();
  const { receiptId = "" } = useParams();
  const receipt = useQuery(receiptsApi.query(orgId, receiptId));
  const [file, setFile] = useState<{ url: string; name: string; bytes: Uint8Array } | null>(null);
  const [local, setLocal] = useState<BundleCheck | null>(null);
  const [error, setError] = useState<unknown>(null);
  return (
    <Loaded query={receipt}>
      {({ receipt: r }) => {
        const who = (kid: string) => r.participants.find((p) => p.kid === kid)?.name ?? null;
        return (
          <Stack gap="lg">
            <PageHeader
              title={`Receipt: ${r.kind}, ${r.outcome}`}
              description="Signed evidence of one call: each step, who signed it, and the checks anyone can repeat on the bundle."
              badge={<StatusBadge status={r.verification.valid ? "valid" : "invalid"} />}
            />
            <Facts
              items={[
                {
                  term: "Bundle",
                  value: (
                    <>
                      <Code>{r.bundle_sha256}</Code> ({r.bundle_size} bytes)
                    </>
                  ),
                },
                {
                  term: "Action",
                  value: (
                    <Anchor component={Link} to={orgPath(orgId, `/actions/${r.protected_action_id}`)}>
                      {r.action.agent.name}: {r.action.tool}
                    </Anchor>
                  ),
                },
                { term: "Outcome", value: <StatusBadge status={r.outcome} /> },
                { term: "Issued", value: <When at={r.issued_at} /> },
                { term: "Receipt object", value: <Code>{r.receipt_object_id}</Code> },
                {
                  term: "Issuer",
                  value: (
                    <>
                      {who(r.issuer_kid) ?? "—"} <Code>{r.issuer_kid}</Code>
                    </>
                  ),
                },
              ]}
            />
            <Stack gap="xs">
              <Title order={2} size="h4">
                Chain
              </Title>
              <List type="ordered" spacing={4} data-testid="chain">
                {r.chain.map((s) => (
                  <List.Item key={s.id}>
                    {s.type} by {who(s.actor) ?? "a signer"} <Code>{s.actor}</Code>
                    {s.on_behalf_of && (
                      <>
                        {" "}
                        on behalf of <Code>{s.on_behalf_of}</Code>
                      </>
                    )}
                    ,{" "}
                    <Text span size="sm" c="dimmed">
                      <When at={s.issued_at} />
                    </Text>
                  </List.Item>
                ))}
              </List>
            </Stack>
            <Stack gap="xs">
              <Title order={2} size="h4">
                Participants
              </Title>
              <DataTable<Participant>
                caption="Participants"
                rows={r.participants}
                rowKey={(p) => p.kid}
                columns={[
                  { key: "name", header: "Name", render: (p) => p.name ?? "—" },
                  { key: "type", header: "Type", render: (p) => p.actor_type ?? "—" },
                  { key: "kid", header: "Key", render: (p) => <Code>{p.kid}</Code> },
                ]}
                empty={<EmptyState title="This receipt names no participant." />}
              />
            </Stack>
            <Stack gap="xs">
              <Title order={2} size="h4">
                Delegations
              </Title>
              <DataTable<Delegation>
                caption="Delegations"
                rows={r.delegations}
                rowKey={(d) => d.object_id}
                columns={[
                  { key: "permissions", header: "Permissions", render: (d) => d.permissions.join(", ") },
                  {
                    key: "signed",
                    header: "Signed by",
                    render: (d) => who(d.signed_by) ?? <Code>{d.signed_by}</Code>,
                  },
                  {
                    key: "expires",
                    header: "Expires",
                    align: "right",
                    render: (d) => <When at={d.expires_at} />,
                  },
                  {
                    key: "check",
                    header: "Check",
                    render: (d) => (
                      <StatusBadge
                        status={d.revocation ? "revoked" : d.passed ? "valid" : "invalid"}
                        label={d.revocation ? "revoked" : d.passed ? "passed" : "failed"}
                      />
                    ),
                  },
                ]}
                empty={
                  <EmptyState title="No delegation in this bundle.">
                    The call was decided without one (a refusal before any grant, or a cancellation).
                  </EmptyState>
                }
              />
            </Stack>
            <Stack gap="xs">
              <Title order={2} size="h4">
                Checks by the service
              </Title>
              <VerificationChecks testId="server-verification" result={r.verification} />
            </Stack>
            <Stack gap="sm">
              <Title order={2} size="h4">
                Verify it yourself
              </Title>
              <Text size="sm" c="dimmed">
                Fetch the bundle's exact bytes, then check them in this browser (nothing more is sent) or
                download them for <Code>countersign verify</Code>.
              </Text>
              <Group gap="sm">
                <Button
                  variant="default"
                  onClick={async () => {
                    setError(null);
                    try {
                      const { bytes } = await receiptsApi.bundle(orgId, r.id);
                      const url = URL.createObjectURL(
                        new Blob([bytes as BlobPart], { type: "application/vnd.service.bundle+json" }),
                      );
                      setFile({ url, name: `receipt-${r.receipt_object_id}.svcbundle`, bytes });
                      setLocal(null);
                    } catch (err) {
                      setError(err);
                    }
                  }}
                >
                  Fetch the bundle
                </Button>
                {file && (
                  <>
                    <Button component="a" variant="default" href={file.url} download={file.name}>
                      Download {file.name}
                    </Button>
                    <Button onClick={() => setLocal(checkBundleBytes(file.bytes))}>
                      Verify in this browser
                    </Button>
                  </>
                )}
              </Group>
              <FileInput
                label="Or verify a bundle file from your disk"
                placeholder="Choose a .svcbundle file"
                maw={420}
                onChange={async (f) => {
                  if (f) setLocal(checkBundleBytes(new Uint8Array(await f.arrayBuffer())));
                }}
              />
              <ErrorNotice error={error} />
              {local && <LocalVerification check={local} recorded={r.bundle_sha256} />}
            </Stack>
          </Stack>
        );
      }}
    </Loaded>
  );
}
