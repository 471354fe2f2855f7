import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Alert, Button, Group, Stack } from "@mantine/core";
import { NavLink, useParams } from "react-router";
import { policies, type PolicyDetail, type PolicyVersion, policyKeys } from "../../api/policies.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { Loaded } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { StatusBadge } from "../../components/StatusBadge.js";
import { ActivationDialog } from "./ActivationDialog.js";
import { DecisionMapView } from "./DecisionMapView.js";
import { DisclosureSetting } from "./DisclosureSetting.js";
import { formatDocument, type TextMode } from "./document-text.js";
import { EvidenceExport } from "./EvidenceExport.js";
import { ExamplesEditor } from "./ExamplesEditor.js";
import { PolicyEditor } from "./PolicyEditor.js";
import { RolloutPanel } from "./RolloutPanel.js";
import { SimulationPanel } from "./SimulationPanel.js";
import { useValidation } from "./useValidation.js";
import { VersionsPanel } from "./VersionsPanel.js";
import { KubernetesManaged } from "../../components/KubernetesManaged.js";
import { NoApprovers } from "./NoApprovers.js";
import { stageLabel, stageStatus } from "./stage-label.js";

const sections = [
  ["", "Document"],
  ["versions", "Versions"],
  ["rollout", "Rollout"],
  ["simulation", "Simulation"],
  ["map", "Decision map"],
  ["evidence", "Evidence"],
  ["settings", "Settings"],
] as const;

const starter = { revision: 1, default_effect: "deny", rules: [] };

/** The text people start editing from: the newest draft, else the active version, else an empty policy. */
function startingDocument(d: PolicyDetail): unknown {
  const draft = d.versions.find((v) => v.status === "draft" && v.document);
  const active = d.versions.find((v) => v.id === d.policy.active_version_id && v.document);
  return draft?.document ?? active?.document ?? starter;
}

/** One policy: its document and examples, versions, rollout, analyses, evidence and settings. */
export function PolicyPage() {
  const { orgId, org } = useCurrentOrganization();
  const { policyId = "" } = useParams();
  const detail = useQuery({
    queryKey: policyKeys.one(policyId),
    queryFn: () => policies.get(orgId, policyId),
  });
  return (
    <Loaded query={detail}>
      {(d) => <PolicyWorkspace key={policyId} orgId={orgId} detail={d} role={org?.role} />}
    </Loaded>
  );
}

function PolicyWorkspace({
  orgId,
  detail,
  role,
}: {
  orgId: string;
  detail: PolicyDetail;
  role: Parameters<typeof can.manage>[0] | undefined;
}) {
  const { section = "" } = useParams();
  const policy = detail.policy;
  const mayWrite = !!role && can.manage(role);
  const mayAdminister = !!role && can.administer(role);
  const [mode, setMode] = useState<TextMode>("json");
  const [text, setText] = useState(() => formatDocument(startingDocument(detail), "json"));
  const validation = useValidation(orgId, text);
  const editorDocument =
    validation.state === "valid" || validation.state === "invalid" ? validation.document : null;
  const [activating, setActivating] = useState<{ version: PolicyVersion; title?: string } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const status = useQuery({ queryKey: policyKeys.status(orgId), queryFn: () => policies.status(orgId) });
  const item = status.data?.items.find((s) => s.policy_id === policy.id);
  const stage = item?.stage ?? "none";
  const newestDraft = detail.versions.find((v) => v.status === "draft");
  const base = orgPath(orgId, `/policies/${policy.id}`);
  const activate = (version: PolicyVersion, title?: string) => {
    setNotice(null);
    setActivating({ version, title });
  };

  return (
    <Stack gap="md">
      <PageHeader
        title={`Policy ${policy.name}`}
        badge={
          <Group gap="xs">
            <StatusBadge
              testId="policy-stage"
              status={stageStatus(stage, newestDraft?.number)}
              label={stageLabel(stage, newestDraft?.number)}
            />
            {policy.emergency_stopped_at && <StatusBadge status="denied" label="emergency stop" />}
          </Group>
        }
        description="Its document and examples, versions, rollout, analyses, evidence and settings."
      />
      <KubernetesManaged managedBy={policy.managed_by} editable={mayWrite} />
      {item && <NoApprovers orgId={orgId} items={[item]} role={role} />}
      {notice && (
        <Alert color="green" variant="light" role="status" data-testid="notice">
          {notice}
        </Alert>
      )}
      <Group
        component="nav"
        aria-label="Policy"
        gap={4}
        pb={6}
        style={{ borderBottom: "1px solid var(--mantine-color-default-border)" }}
      >
        {sections
          .filter(([s]) => s !== "evidence" || mayAdminister)
          .map(([s, name]) => (
            <Button
              key={s}
              component={NavLink}
              to={s ? `${base}/${s}` : base}
              end
              size="compact-sm"
              variant={s === section ? "light" : "subtle"}
              color={s === section ? undefined : "gray"}
            >
              {name}
            </Button>
          ))}
      </Group>
      {section === "" && (
        <>
          <PolicyEditor
            orgId={orgId}
            policyId={policy.id}
            text={text}
            setText={setText}
            mode={mode}
            setMode={setMode}
            validation={validation}
            mayWrite={mayWrite}
          />
          <ExamplesEditor
            orgId={orgId}
            policyId={policy.id}
            saved={detail.examples}
            document={editorDocument}
            mayWrite={mayWrite}
          />
        </>
      )}
      {section === "versions" && (
        <VersionsPanel
          orgId={orgId}
          detail={detail}
          mayActivate={mayAdminister}
          onActivate={(v) => activate(v)}
        />
      )}
      {section === "rollout" && (
        <RolloutPanel
          orgId={orgId}
          detail={detail}
          stage={stage}
          mayWrite={mayWrite}
          mayAdminister={mayAdminister}
          activate={activate}
          notify={setNotice}
        />
      )}
      {section === "simulation" && (
        <SimulationPanel orgId={orgId} detail={detail} editorDocument={editorDocument} mayWrite={mayWrite} />
      )}
      {section === "map" && <DecisionMapView orgId={orgId} detail={detail} />}
      {section === "evidence" && mayAdminister && <EvidenceExport orgId={orgId} policy={policy} />}
      {section === "settings" && (
        <DisclosureSetting orgId={orgId} policy={policy} mayChange={mayAdminister} />
      )}
      {activating && (
        <ActivationDialog
          orgId={orgId}
          detail={detail}
          version={activating.version}
          title={activating.title}
          onClose={() => setActivating(null)}
          onDone={(a) => {
            setActivating(null);
            setNotice(
              `Version ${a.version.number} is active${a.shadow_cleared ? "; the shadow was cleared" : ""}.`,
            );
          }}
        />
      )}
    </Stack>
  );
}
