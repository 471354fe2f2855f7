import type { RolloutStage } from "@countersign/protocol/wire";

const stages: { stage: RolloutStage; name: string; what: string }[] = [
  {
    stage: "observe",
    name: "Observe",
    what: "calls are allowed and recorded while an observe window is open",
  },
  {
    stage: "shadow",
    name: "Shadow",
    what: "a new version is evaluated beside the active one, deciding nothing",
  },
  {
    stage: "require_approval",
    name: "Require approval",
    what: "what the new version would deny is held for approval",
  },
  { stage: "enforce", name: "Enforce", what: "the active version decides every call" },
];

/** The rollout stage of SPEC 3.5 as a timeline; the stage is derived by the service on every read. */
export function RolloutTimeline({ stage, stopped }: { stage: RolloutStage; stopped: boolean }) {
  const at = stages.findIndex((s) => s.stage === stage);
  return (
    <div className="timeline-wrap">
      <ol className="timeline" aria-label="Rollout stage" data-testid="rollout-stage" data-stage={stage}>
        {stages.map((s, i) => (
          <li
            key={s.stage}
            aria-current={i === at ? "step" : undefined}
            className={i === at ? "current" : i < at ? "past" : undefined}
          >
            <strong>{s.name}</strong>
            <span>{s.what}</span>
          </li>
        ))}
      </ol>
      {stage === "none" && (
        <p className="muted">No version is active: every call of this policy's agents is denied.</p>
      )}
      {stopped && (
        <p className="error" role="alert" data-code="EMERGENCY_ACTIVE">
          Emergency stop: every call is denied until a rollback.
        </p>
      )}
    </div>
  );
}
