import { useEffect, useState, type ReactNode } from "react";
import { Alert, Button, Checkbox, Group, List, Paper, Stack, Text, Textarea } from "@mantine/core";
import type { ExampleResult } from "@countersign/protocol/policy";
import { useQueryClient } from "@tanstack/react-query";
import {
  policies,
  type Activation,
  type LanguageGate,
  type PolicyDetail,
  type PolicyVersion,
  type Simulation,
  type VersionImpact,
  policyKeys,
} from "../../api/policies.js";
import { impactSchema, languageGateSchema } from "@countersign/protocol/wire";
import { failureOf, idIn } from "../../api/errors.js";
import { Dialog } from "../../components/Dialog.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";

const gateReasons: Record<Extract<LanguageGate, { open: false }>["reason"], string> = {
  no_recent_gateway:
    "No Gateway reported in the last minute, so none is confirmed to support language revision 2.",
  outdated_gateway_running: "These Gateways still run without language revision 2; upgrade them first:",
  older_gateway_decided_recently:
    "A Gateway without language revision 2 decided this organization's calls in the last 30 minutes.",
};

/**
 * Activation through the gates of SPEC 3.4, each shown as the person meets it: the saved examples
 * run against the version (failures block until acknowledged), the impact preview (calls that
 * would be less restricted, read from GET .../impact, the very computation the activation checks,
 * and sent back as max_loosened so only a change meanwhile is refused), the language gate, and the
 * active and shadow versions expected, which the service checks when it activates. A first
 * activation (no active version, every call denied NO_POLICY) is told as such.
 */
export function ActivationDialog({
  orgId,
  detail,
  version,
  title,
  onClose,
  onDone,
}: {
  orgId: string;
  detail: PolicyDetail;
  version: PolicyVersion;
  title?: string;
  onClose: () => void;
  onDone: (a: Activation) => void;
}) {
  const { policy, versions } = detail;
  const queryClient = useQueryClient();
  const [expected, setExpected] = useState(policy.active_version_id);
  const [preview, setPreview] = useState<Simulation | null>(null);
  const [previewError, setPreviewError] = useState<unknown>(null);
  const [impact, setImpact] = useState<VersionImpact | null>(null);
  const [acknowledged, setAcknowledged] = useState(false);
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [gate, setGate] = useState<LanguageGate | null>(null);
  const [changedTo, setChangedTo] = useState<string | null | undefined>(undefined);
  // The shadow version the person saw, sent so that a shadow set or cleared meanwhile refuses the
  // activation (SHADOW_CHANGED) rather than passing under a report they did not read; and the
  // shadow the service named when it refused.
  const [shadowSeen, setShadowSeen] = useState(policy.shadow_version_id);
  const [shadowNow, setShadowNow] = useState<string | null | undefined>(undefined);
  // The service's count of less-restricted calls when it refused IMPACT_CHANGED, and a bump that
  // runs the preview again once the person chooses to review the new impact.
  const [impactNow, setImpactNow] = useState<number | null>(null);
  const [previewRun, setPreviewRun] = useState(0);

  const numberOf = (id: string | null) =>
    id ? `version ${versions.find((v) => v.id === id)?.number ?? "?"}` : "no version";
  const first = expected === null;

  useEffect(() => {
    setPreview(null);
    setImpact(null);
    setPreviewError(null);
    // The examples come with a simulation; the impact from the service's own activation check.
    policies
      .simulate(orgId, policy.id, {
        candidate: { version_id: version.id },
        baseline: expected ? { kind: "version", version_id: expected } : { kind: "none" },
        window_days: 7,
        scope: "agents",
        environment: "all",
        examples: true,
      })
      .then((r) => setPreview(r.simulation), setPreviewError);
    policies.impact(orgId, policy.id, version.id).then(setImpact, setPreviewError);
  }, [orgId, policy.id, version.id, expected, previewRun]);

  // The service's own answer wins when the examples changed after the preview ran.
  const [refusedFailing, setRefusedFailing] = useState<ExampleResult[] | null>(null);
  const failing = refusedFailing ?? preview?.examples?.results.filter((r) => r.passed === false) ?? [];
  const computed = impact?.impact?.computed ? impact.impact : null;
  const lessRestricted = computed?.less_restricted;
  const blocked = ((!preview || !impact) && !previewError) || (failing.length > 0 && !acknowledged);

  async function activate() {
    setBusy(true);
    setError(null);
    setGate(null);
    try {
      const a = await policies.activate(orgId, policy.id, version.id, {
        expected_active_version_id: expected,
        shadow_version_id: shadowSeen,
        ...(note.trim() ? { note: note.trim() } : {}),
        ...(acknowledged ? { acknowledge_failing_examples: true } : {}),
        ...(lessRestricted !== undefined ? { max_loosened: lessRestricted } : {}),
      });
      await queryClient.invalidateQueries({ queryKey: policyKeys.one(policy.id) });
      await queryClient.invalidateQueries({ queryKey: policyKeys.status(orgId) });
      onDone(a);
    } catch (err) {
      const failure = failureOf(err);
      if (failure?.code === "EXAMPLES_FAILING")
        setRefusedFailing((failure.details?.failing as ExampleResult[] | undefined) ?? []);
      if (failure?.code === "GATEWAYS_NOT_UPGRADED") {
        const gate = languageGateSchema.safeParse(failure.details?.language_gate);
        if (gate.success) setGate(gate.data);
      }
      if (failure?.code === "SHADOW_CHANGED") {
        // Told in the shadow gate, where it names the shadow as it is now.
        setShadowNow(idIn(failure.details, "shadow_version_id"));
        await queryClient.invalidateQueries({ queryKey: policyKeys.one(policy.id) });
        return;
      }
      if (failure?.code === "ACTIVE_VERSION_CHANGED") {
        setChangedTo(idIn(failure.details, "active_version_id"));
        await queryClient.invalidateQueries({ queryKey: policyKeys.one(policy.id) });
      }
      const impact = impactSchema.safeParse(failure?.details?.impact);
      const lessNow = impact.success ? impact.data.less_restricted : undefined;
      if (failure?.code === "IMPACT_CHANGED" && lessNow !== undefined) {
        // Told in the impact gate, where it names what changed.
        setImpactNow(lessNow);
        return;
      }
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog title={title ?? `Activate version ${version.number}`} onClose={onClose}>
      <Stack gap="sm">
        {first ? (
          <Text fw={500} data-testid="activation-summary">
            First activation: version {version.number} becomes the version in force for every agent of{" "}
            <strong>{policy.name}</strong>. No version is active yet, so every call of these agents is denied
            (NO_POLICY) until you activate one.
          </Text>
        ) : (
          <Text fw={500} data-testid="activation-summary">
            Replaces {numberOf(expected)} as the version in force for every agent of{" "}
            <strong>{policy.name}</strong>.
          </Text>
        )}
        <Stack gap="xs" component="ol" m={0} p={0} style={{ listStyle: "none" }} data-testid="gates">
          <Gate
            gate="examples"
            state={!preview ? "checking" : failing.length ? "failing" : "passing"}
            name="Examples. "
          >
            {!preview && !refusedFailing
              ? "Running the saved examples…"
              : refusedFailing
                ? `${failing.length} example(s) fail under version ${version.number}:`
                : !preview?.examples || preview.examples.results.length === 0
                  ? "This policy has no saved examples."
                  : failing.length === 0
                    ? `All ${preview.examples.passed} examples with an expectation pass.`
                    : `${failing.length} example(s) fail under version ${version.number}:`}
            {failing.length > 0 && (
              <>
                <List size="sm" mt={4}>
                  {failing.map((r) => (
                    <List.Item key={r.id}>
                      {r.label ?? r.id}: expected {r.expected.outcome} by{" "}
                      {r.expected.rule_id ?? "the default"}, got {r.actual.outcome} by{" "}
                      {r.actual.rule_id ?? "the default"}
                    </List.Item>
                  ))}
                </List>
                <Checkbox
                  mt="xs"
                  checked={acknowledged}
                  onChange={(e) => setAcknowledged(e.currentTarget.checked)}
                  label="I acknowledge the failing examples and activate anyway"
                />
              </>
            )}
          </Gate>
          <Gate
            gate="impact"
            state={!impact ? "checking" : computed && lessRestricted! > 0 ? "loosens" : "passing"}
            name="Impact. "
            lessRestricted={lessRestricted ?? ""}
          >
            {!impact
              ? "Replaying the last 7 days of calls…"
              : !impact.impact
                ? "Not computed: the version no longer validates."
                : !computed
                  ? "Not computed: replaying the recent calls took longer than its time budget, so the activation does not check it."
                  : first
                    ? `No version is active, so these agents' calls are denied now; under version ${version.number}, ${lessRestricted} of ${computed.decisions} recent call(s) of the last 7 days would be allowed or held for approval.`
                    : `${lessRestricted} of ${computed.decisions} recent call(s) of the last 7 days would be less restricted, ${computed.more_restricted} more restricted.`}
            {computed && lessRestricted! > 0 && (
              <Text span fw={600} inherit>
                {" "}
                Calls that were held or denied would go through.
              </Text>
            )}
            {impactNow !== null && (
              <Alert
                color="red"
                variant="light"
                role="alert"
                mt="xs"
                data-testid="impact-changed"
                data-code="IMPACT_CHANGED"
              >
                The impact changed meanwhile: {impactNow} recent call(s) would now be less restricted, not the{" "}
                {lessRestricted} you reviewed. Nothing was activated. Review the new impact and confirm again.{" "}
                <Button
                  size="compact-sm"
                  variant="light"
                  onClick={() => {
                    setImpactNow(null);
                    setPreviewRun((n) => n + 1);
                  }}
                >
                  Review the new impact
                </Button>
              </Alert>
            )}
          </Gate>
          <Gate gate="language" name="Language. ">
            {version.language_revision === 1
              ? "Revision 1: every Gateway supports it."
              : "Revision 2: every running Gateway must support it; checked as you activate."}
            {gate && !gate.open && (
              <Alert color="red" variant="light" mt="xs" data-testid="language-gate">
                {gateReasons[gate.reason]}
                {gate.outdated_instances && (
                  <List size="sm">
                    {gate.outdated_instances.map((g) => (
                      <List.Item key={g}>{g}</List.Item>
                    ))}
                  </List>
                )}
              </Alert>
            )}
          </Gate>
          <Gate gate="shadow" name="Shadow. ">
            {shadowNow === undefined ? (
              shadowSeen ? (
                `Activation is refused if ${numberOf(shadowSeen)} is no longer the shadow when you confirm.`
              ) : (
                "Activation is refused if a version is shadowed before you confirm."
              )
            ) : (
              <Text
                span
                inherit
                c="red"
                data-testid="activation-shadow-changed"
                role="alert"
                data-code="SHADOW_CHANGED"
              >
                The shadow changed meanwhile:{" "}
                {shadowNow ? `it is now ${numberOf(shadowNow)}` : "no version is shadowed"}. Nothing was
                activated.{" "}
                <Button
                  size="compact-sm"
                  variant="light"
                  onClick={() => {
                    setShadowSeen(shadowNow);
                    setShadowNow(undefined);
                    setError(null);
                  }}
                >
                  Review against the shadow as it is
                </Button>
              </Text>
            )}
          </Gate>
          <Gate gate="expected-active" name="Active version. ">
            {changedTo === undefined ? (
              first ? (
                "Activation is refused if another version is activated before you confirm."
              ) : (
                `Activation is refused if ${numberOf(expected)} is no longer the active version when you confirm.`
              )
            ) : (
              <Text span inherit c="red" data-testid="active-changed">
                The active version changed meanwhile: it is now {numberOf(changedTo)}. Review the gates
                against it and confirm again.{" "}
                <Button
                  size="compact-sm"
                  variant="light"
                  onClick={() => {
                    setExpected(changedTo);
                    setChangedTo(undefined);
                    setError(null);
                    setAcknowledged(false);
                  }}
                >
                  Review against {numberOf(changedTo)}
                </Button>
              </Text>
            )}
          </Gate>
        </Stack>
        <ErrorNotice error={previewError} />
        <Textarea
          label="Note (optional)"
          value={note}
          onChange={(e) => setNote(e.currentTarget.value)}
          autosize
          minRows={2}
          maxLength={2000}
        />
        <ErrorNotice error={error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button
            onClick={activate}
            loading={busy}
            disabled={blocked || changedTo !== undefined || impactNow !== null || shadowNow !== undefined}
          >
            Activate version {version.number}
          </Button>
        </Group>
      </Stack>
    </Dialog>
  );
}

/** One gate of the activation (SPEC 3.4): its name, then what it found. */
function Gate({
  gate,
  state,
  name,
  lessRestricted,
  children,
}: {
  gate: string;
  state?: string;
  name: string;
  lessRestricted?: number | "";
  children: ReactNode;
}) {
  return (
    <Paper
      component="li"
      withBorder
      p="xs"
      data-gate={gate}
      data-state={state}
      data-less-restricted={lessRestricted}
    >
      <Text size="sm" component="div">
        <Text span fw={700} inherit>
          {name}
        </Text>
        {children}
      </Text>
    </Paper>
  );
}
