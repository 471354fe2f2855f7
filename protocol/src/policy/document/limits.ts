/**
 * The limits of SPEC 8.3 on policy documents and their argument conditions.
 * Each one is checked by validate.ts with its own issue code.
 */
export const policyLimits = {
  /** Whole document as canonical JSON. */
  documentBytes: 256 * 1024,
  argumentConditionsPerRule: 16,
  argumentConditionsPerDocument: 512,
  /** Steps after `$` in an argument path. */
  pathTokens: 28,
  inValues: 256,
  affixValues: 64,
  /** Text operands: values, patterns, prefixes, suffixes. */
  textChars: 1024,
  /** Digits before and after the point of decimal bounds and values. */
  decimalDigits: 40,
  lintWarnings: 100,
  /** Explanation (SPEC 8.3): larger full explanations become minimal. */
  explanationBytes: 16 * 1024,
  examples: 200,
  simulationDistinctInputs: 20_000,
  simulationRuleEvaluations: 2_000_000,
} as const;

/** Bounds the language sets itself where the spec is silent (docs/policy-language.md). */
export const languageBounds = {
  ruleIdChars: 128,
  descriptionChars: 500,
  toolPatternsPerRule: 256,
  conditionsPerRule: 64,
  approverCountMax: 32,
  approvalTtlMin: 60,
  approvalTtlMax: 2_592_000,
} as const;
