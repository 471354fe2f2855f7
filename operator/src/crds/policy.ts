// Policy: the document and saved examples kept in Git, and the rollout the operator should bring
// about through the Cloud API's gates (SPEC 3.3-3.5). The document is the policy language of
// docs/policy-language.md; the apiserver keeps it as given and the Cloud API validates it.
import { z } from "zod";
import { cloudId, displayName, objectName, statusBase, timestamp, versionNumber } from "./fields.js";

const policyDocument = z.looseObject({}).meta({
  description: "Policy document (docs/policy-language.md), at most 256 KiB. Validated by the Cloud API.",
  "x-kubernetes-preserve-unknown-fields": true,
});

export const policyExample = z
  .object({
    id: z.string().min(1).max(128).meta({ description: "Stable id of the example within the policy." }),
    label: z.string().max(200).optional().meta({ description: "What the example shows, for people." }),
    action: z.string().min(1).max(1024).meta({ description: "The action name the call is made under." }),
    tool: z.string().min(1).max(128).meta({ description: "The tool called (its exposed name)." }),
    amount: z
      .string()
      .regex(/^-?[0-9]{1,40}(\.[0-9]{1,40})?$/, "a decimal of at most 40 digits before and after the point")
      .optional()
      .meta({ description: "Amount of the call, a decimal string; with currency." }),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .optional()
      .meta({ description: "ISO 4217 currency of amount." }),
    expectedOutcome: z
      .enum(["allowed", "requires_approval", "denied", "none"])
      .meta({ description: "The outcome the policy must give." }),
    expectedRule: z
      .string()
      .max(128)
      .default("")
      .meta({ description: "Deciding rule id; empty means the default effect." }),
  })
  .meta({
    "x-kubernetes-validations": [
      { rule: "has(self.amount) == has(self.currency)", message: "an amount and its currency go together" },
    ],
  });

export const observeWindow = z.object({
  agent: objectName.meta({ description: "Agent (metadata.name, same namespace) whose calls are observed." }),
  hours: z
    .int()
    .min(1)
    .max(168)
    .meta({ description: "Window length; never longer than the organization's observe_max_hours." }),
});

export const rolloutStages = ["Enforce", "Shadow", "RequireApproval"] as const;

export const policySpec = z
  .object({
    name: displayName
      .optional()
      .meta({ description: "Policy name in the Cloud API; defaults to metadata.name." }),
    document: policyDocument,
    examples: z
      .array(policyExample)
      .max(200)
      .default([])
      .meta({
        description:
          "Saved examples (at most 200). Activation is refused while one fails, unless acknowledged.",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["id"],
      }),
    agentDisclosure: z
      .enum(["inherit", "none", "rule", "conditions"])
      .default("inherit")
      .meta({ description: "How much of a refusal the agent is told; inherit: the organization's setting." }),
    rollout: z
      .object({
        stage: z.enum(rolloutStages).default("Enforce").meta({
          description:
            "Enforce: the document is activated. Shadow: the document stays active and candidate is evaluated in reports. RequireApproval: the require-approval copy of candidate is activated.",
        }),
        candidate: policyDocument
          .optional()
          .meta({ description: "Target document for Shadow and RequireApproval." }),
        acknowledgeFailingExamples: z
          .boolean()
          .default(false)
          .meta({ description: "Activate even when saved examples fail (recorded with the activation)." }),
        observe: z
          .array(observeWindow)
          .max(100)
          .default([])
          .meta({
            description: "Observe windows to open for named agents.",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["agent"],
          }),
      })
      .prefault({ stage: "Enforce", acknowledgeFailingExamples: false, observe: [] })
      .meta({
        description: "The rollout the operator brings about through the Cloud API's gates (SPEC 3.3-3.5).",
        "x-kubernetes-validations": [
          {
            rule: "self.stage == 'Enforce' || has(self.candidate)",
            message: "rollout.candidate is required for Shadow and RequireApproval",
          },
          {
            rule: "self.stage != 'Enforce' || !has(self.candidate)",
            message: "rollout.candidate is only used with Shadow or RequireApproval",
          },
        ],
      }),
    rollbackToVersion: versionNumber.optional().meta({
      description:
        "Declares a rollback: the version number to restore. While set, the document is not activated. Remove it to resume activating the document.",
    }),
  })
  .meta({
    "x-kubernetes-validations": [
      {
        rule: "!has(self.rollbackToVersion) || self.rollout.stage == 'Enforce'",
        message: "a rollback (rollbackToVersion) needs rollout.stage Enforce",
      },
    ],
  });

/** Derived rollout stage of SPEC 3.5, as shown by `kubectl get policies`. */
export const policyStages = ["None", "Observe", "Shadow", "RequireApproval", "Enforce"] as const;

const versionRef = z.object({
  id: cloudId.meta({ description: "Cloud API id of the version." }),
  number: versionNumber.meta({ description: "The version number." }),
  digest: z.string().max(128).meta({ description: "Digest of the version's document." }),
});

export const policyStatus = z.object({
  ...statusBase,
  policyId: cloudId.optional().meta({ description: "Cloud API id of the policy." }),
  stage: z.enum(policyStages).optional().meta({ description: "The derived rollout stage (SPEC 3.5)." }),
  activeVersion: versionRef.optional().meta({ description: "The version in force." }),
  shadowVersion: versionRef.optional().meta({ description: "The version evaluated in shadow, if any." }),
  gates: z
    .object({
      examples: z
        .object({
          passing: z
            .boolean()
            .meta({ description: "Whether every saved example gave its expected outcome." }),
          failing: z
            .array(
              z.object({
                id: z.string().max(128).meta({ description: "The example's id." }),
                expected: z.string().max(300).meta({ description: "Expected outcome, by rule." }),
                actual: z.string().max(300).meta({ description: "Actual outcome, by rule." }),
              }),
            )
            .max(200)
            .optional()
            .meta({ description: "The examples that failed." }),
        })
        .optional()
        .meta({ description: "The examples gate." }),
      language: z
        .object({
          passing: z
            .boolean()
            .meta({ description: "Whether every Gateway understands the document's language." }),
          message: z.string().max(1024).optional().meta({ description: "Why not, when it does not pass." }),
        })
        .optional()
        .meta({ description: "The language gate." }),
    })
    .optional()
    .meta({ description: "Results of the activation gates of SPEC 3.4 for the last attempted version." }),
  rollback: z
    .object({
      toVersion: versionNumber.meta({ description: "The declared rollbackToVersion acted on." }),
      version: versionNumber.meta({ description: "The version the rollback created (a copy of toVersion)." }),
      closedActions: z
        .int()
        .min(0)
        .meta({ description: "Open actions the rollback closed (open_actions keep: 0)." }),
    })
    .optional()
    .meta({ description: "The last rollback the operator made for the declared rollbackToVersion." }),
  observeWindows: z
    .array(
      z.object({
        agent: objectName.meta({ description: "Agent resource (same namespace)." }),
        agentId: cloudId.meta({ description: "Cloud API id of the agent." }),
        windowId: cloudId.meta({ description: "Cloud API id of the window." }),
        hours: z.int().min(1).max(168).meta({ description: "Length of the window." }),
        endsAt: timestamp.meta({ description: "When the window ends." }),
        state: z.enum(["open", "ended"]).meta({ description: "open, or ended (never reopened)." }),
      }),
    )
    .max(100)
    .optional()
    .meta({
      description:
        "The window opened (or found open) for each rollout.observe entry. An ended window is not reopened while its entry stays.",
    }),
});

export type PolicySpec = z.infer<typeof policySpec>;
export type PolicyStatus = z.infer<typeof policyStatus>;
