/**
 * The policy language and engine (docs/policy-language.md): a pure library,
 * no I/O. Validate a document, compile it once, evaluate calls on the hot
 * path, explain decisions, and analyse versions for the Cloud API.
 */

// Documents
export {
  documentSchema,
  ruleSchema,
  conditionSchema,
  approversSchema,
  effects,
  approverRoles,
  requiredRevision,
  languageRevision,
  DEFAULT_APPROVERS,
  type PolicyDocument,
  type Rule,
  type Condition,
  type ActionCondition,
  type AmountCondition,
  type ArgumentCondition,
  type ConditionOp,
  type Approvers,
  type ApproverRole,
  type Effect,
  type LanguageRevision,
} from "./document/schema.js";
export { policyLimits, languageBounds } from "./document/limits.js";
export {
  validatePolicy,
  parsePolicy,
  policyInvalidError,
  type ValidationResult,
  type PolicyIssue,
} from "./validate.js";
export { lintPolicy, type LintContext, type LintTool, type LintResult } from "./lint.js";
export { policyDigest } from "./digest.js";
export { isDecimal, compareDecimal, DECIMAL_PATTERN, MAX_DECIMAL_DIGITS } from "./decimal.js";

// Evaluation
export {
  compilePolicy,
  CompiledPolicy,
  UNKNOWN_ARGUMENTS,
  scaledAmount,
  type OpenDecision,
} from "./compile.js";
export {
  evaluatePolicy,
  restriction,
  PolicyInputError,
  type PolicyInput,
  type Decision,
  type DecisionApprovers,
} from "./evaluate.js";

// Explanations
export { decide, type DecisionFacts, type DecisionWithFacts } from "./explain/facts.js";
export type { AmountBand } from "./explain/amount-band.js";
export {
  agentExplanation,
  whyText,
  AGENT_EXPLANATION_SCHEMA,
  type AgentExplanation,
  type AgentCondition,
} from "./explain/agent.js";
export {
  fullExplanation,
  EXPLANATION_SCHEMA,
  type Explanation,
  type FullExplanation,
  type MinimalExplanation,
  type ExplainedRule,
  type ExplainedCondition,
} from "./explain/full.js";
export type { ExplanationContext, DecidedBy, ApprovalSummary } from "./explain/context.js";
export {
  effectiveDisclosure,
  disclosureLevels,
  type Disclosure,
  type PolicyDisclosure,
} from "./explain/disclosure.js";

// Policy files (documents and Policy custom resources)
export {
  policySources,
  examplesSource,
  exampleFromResource,
  PolicySourceError,
  type PolicySource,
} from "./source.js";

// Examples, analysis, templates
export {
  runExamples,
  validateExamples,
  exampleSchema,
  exampleOutcomes,
  type PolicyExample,
  type ExampleOutcome,
  type ExampleResult,
  type ExamplesReport,
} from "./examples.js";
export { requireApprovalDraft } from "./analysis/require-approval-draft.js";
export { diffPolicies, type PolicyDiff, type RuleRef } from "./analysis/diff.js";
export {
  decisionMap,
  type DecisionMap,
  type MapTool,
  type MapEntry,
  type MapOutcome,
} from "./analysis/decision-map.js";
export {
  simulate,
  type Baseline,
  type RecordedInput,
  type RecordedDecision,
  type SimulationReport,
  type SimulationCounts,
  type SimulationDifference,
  type SimulationOptions,
  type Change,
} from "./analysis/simulate.js";
export { policyTemplates, policyTemplate, type PolicyTemplate } from "./templates/index.js";
