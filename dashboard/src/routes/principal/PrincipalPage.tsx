import { Alert, Button, Code, FileButton, Group, Stack, Text, Title } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { principalApi, principalKeys } from "../../api/principal.js";
import type { Identity } from "@countersign/protocol/wire";
import { useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { Loaded, LoadingLine } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { StatusBadge } from "../../components/StatusBadge.js";
import {
  draftPrincipal,
  keepPrincipal,
  principalKey,
  restorePrincipal,
  type PrincipalDraft,
} from "../../crypto/principal-key.js";
import { genesisDocument, replacedDocument } from "../../crypto/webcrypto.js";

export function usePrincipal(orgId: string) {
  return useQuery(principalApi.query(orgId));
}

/** Whether this browser holds the registered principal's key (from creation or a restored backup). */
function HeldHere({ orgId, kid }: { orgId: string; kid: string }) {
  const held = useQuery({
    queryKey: ["principal-key", orgId, kid],
    queryFn: async () => Boolean(await principalKey(orgId, kid)),
    retry: false,
  });
  if (held.isError) return <ErrorNotice error={held.error} />;
  if (held.data === undefined) return null;
  return held.data ? (
    <Text size="sm" data-testid="principal-held">
      This browser holds the principal's key.
    </Text>
  ) : (
    <Alert color="yellow" variant="light" data-testid="principal-not-held">
      This browser does not hold the principal's key. Restore it from the backup file to sign delegations and
      cancellations here.
    </Alert>
  );
}

/**
 * Makes a new principal key, has its backup downloaded, then registers it: as the organization's
 * first principal, or (when `replacing` is set) in place of the current one (SPEC 2.1: an owner can
 * replace it). On a replacement, when this browser holds the current principal's key, that key also
 * signs its own last document, `replaced` by the new KID, so the old log says where authority went;
 * without it (a lost key) the old principal is still marked replaced.
 */
function CreatePrincipal({
  orgId,
  orgName,
  replacing,
}: {
  orgId: string;
  orgName: string;
  replacing?: Identity;
}) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<PrincipalDraft | null>(null);
  const [backupTaken, setBackupTaken] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  if (!draft)
    return (
      <Stack gap="sm" align="flex-start">
        {replacing ? (
          <Text size="sm">
            Replace the principal when its key is lost or exposed. A new key takes its place; delegations
            signed by the current principal stop authorizing, so grant them again with the new key on each
            agent's page. Receipts already issued stay valid.
          </Text>
        ) : (
          <Text size="sm">
            The principal is this organization's own key. It signs the delegations that let agents act, and
            cancellations. Its private key stays in your browser and in a backup file you keep.
          </Text>
        )}
        <Button
          variant={replacing ? "default" : "filled"}
          onClick={() => {
            setError(null);
            draftPrincipal().then(setDraft, setError);
          }}
        >
          {replacing ? "Replace the principal" : "Create the principal"}
        </Button>
        <ErrorNotice error={error} />
      </Stack>
    );
  const href = URL.createObjectURL(new Blob([draft.pem], { type: "application/x-pem-file" }));
  return (
    <Stack gap="sm">
      <Text size="sm">
        New principal <Code data-testid="principal-draft-kid">{draft.kid}</Code>. Download its backup before
        registering it: without the file the key is lost with this browser's data. Keep it as you keep other
        secrets. It is PKCS#8 PEM, the one format of principal keys: the operator's Organization Secret holds
        it, and the <Code>countersign</Code> CLI reads it as downloaded (<Code>--principal-key-file</Code>,
        after <Code>chmod 600</Code> on the file).
      </Text>
      <Group gap="sm">
        <Button
          component="a"
          variant={backupTaken ? "default" : "filled"}
          href={href}
          download={`countersign-principal-${orgId}.pem`}
          onClick={() => setBackupTaken(true)}
        >
          Download the key backup
        </Button>
        <Button
          disabled={!backupTaken}
          loading={busy}
          title={backupTaken ? undefined : "Download the backup first"}
          onClick={async () => {
            setBusy(true);
            setError(null);
            try {
              const last = replacing?.documents.at(-1);
              const document = await genesisDocument(
                draft.privateKey,
                draft.publicKey,
                "principal",
                { organization_id: orgId, id: orgId, name: orgName },
                last ? last.body.kid : null,
              );
              const oldKey =
                replacing && replacing.status === "active"
                  ? await principalKey(orgId, replacing.kid)
                  : undefined;
              const predecessor =
                oldKey && last
                  ? await replacedDocument(oldKey.privateKey, last, document.body.kid)
                  : undefined;
              await principalApi.register(orgId, predecessor ? { document, predecessor } : { document });
              await keepPrincipal(orgId, draft);
              await queryClient.invalidateQueries({ queryKey: principalKeys.state(orgId) });
              await queryClient.invalidateQueries({ queryKey: ["principal-key", orgId] });
            } catch (err) {
              setError(err);
            } finally {
              setBusy(false);
            }
          }}
        >
          {replacing ? "Register the replacement" : "Register the principal"}
        </Button>
      </Group>
      {!backupTaken && (
        <Text size="sm" c="dimmed">
          Registering is possible once the backup is downloaded.
        </Text>
      )}
      <ErrorNotice error={error} />
    </Stack>
  );
}

function RestorePrincipal({ orgId, kid }: { orgId: string; kid: string }) {
  const queryClient = useQueryClient();
  const [error, setError] = useState<unknown>(null);
  return (
    <Stack gap={4} align="flex-start">
      <FileButton
        accept=".pem,application/x-pem-file"
        inputProps={{ "aria-label": "Restore from a backup file" }}
        onChange={async (file) => {
          setError(null);
          if (!file) return;
          try {
            await restorePrincipal(orgId, await file.text(), kid);
            await queryClient.invalidateQueries({ queryKey: ["principal-key", orgId] });
          } catch (err) {
            setError(err);
          }
        }}
      >
        {(props) => (
          <Button variant="default" {...props}>
            Restore from a backup file
          </Button>
        )}
      </FileButton>
      <ErrorNotice error={error} />
    </Stack>
  );
}

export function PrincipalPage() {
  const { orgId, org } = useCurrentOrganization();
  const principal = usePrincipal(orgId);
  if (!org) return <LoadingLine />;
  return (
    <Stack gap="md" maw={760}>
      <PageHeader
        title="Organization principal"
        description="The organization's own key: it signs the delegations that let agents act, their revocations and cancellations. Until one is registered no agent can be authorized."
      />
      <Loaded query={principal}>
        {({ principal: p }) =>
          p ? (
            <Stack gap="md">
              <Group gap="sm">
                <Text size="sm">
                  Principal <Code data-testid="principal-kid">{p.kid}</Code>
                </Text>
                <StatusBadge status={p.valid ? "valid" : "invalid"} />
              </Group>
              {!p.valid && (
                <Alert color="red" variant="light" data-testid="principal-invalid">
                  Permanently invalid: its identity documents conflict (equivocation). An owner must register
                  a replacement.
                </Alert>
              )}
              <HeldHere orgId={orgId} kid={p.kid} />
              {can.own(org.role) && (
                <>
                  <RestorePrincipal orgId={orgId} kid={p.kid} />
                  <Title order={2} size="h3">
                    Replace the principal
                  </Title>
                  <CreatePrincipal key={p.kid} orgId={orgId} orgName={org.name} replacing={p} />
                </>
              )}
            </Stack>
          ) : can.own(org.role) ? (
            <CreatePrincipal orgId={orgId} orgName={org.name} />
          ) : (
            <Text size="sm">
              This organization has no principal yet; an owner creates it. Until then no agent can be
              authorized (NO_PRINCIPAL).
            </Text>
          )
        }
      </Loaded>
    </Stack>
  );
}
