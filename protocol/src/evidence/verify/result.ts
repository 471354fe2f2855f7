import { z } from "zod";
import { checkNames, type CheckName, type EvidenceErrorCode, type EvidenceWarningCode } from "./codes.js";

/** A verification is data (SPEC 2.8 `verification`), never an exception. */
export const verificationProblemSchema = z.object({
  code: z.string(),
  check: z.enum(checkNames),
  message: z.string(),
  object_id: z.string().optional(),
  kid: z.string().optional(),
});
export const verificationResultSchema = z.object({
  valid: z.boolean(),
  checks: z.array(z.object({ name: z.enum(checkNames), passed: z.boolean() })),
  errors: z.array(verificationProblemSchema),
  warnings: z.array(verificationProblemSchema),
  notes: z.array(z.string()),
  equivocated_identities: z.array(z.string()),
  verified_at: z.string(),
});
export type VerificationProblem = z.infer<typeof verificationProblemSchema>;
export type VerificationResult = z.infer<typeof verificationResultSchema>;

type Where = { object_id?: string; kid?: string };

/** Collects problems as checks run; `finish` decides validity from them alone. */
export class Findings {
  readonly errors: VerificationProblem[] = [];
  readonly warnings: VerificationProblem[] = [];
  readonly notes: string[] = [];
  private readonly ran = new Set<CheckName>();
  private readonly failed = new Set<CheckName>();
  readonly equivocated = new Set<string>();

  run(check: CheckName): void {
    this.ran.add(check);
  }

  /** A check that could not run because an earlier one failed: reported as not passed. */
  skip(check: CheckName): void {
    this.ran.add(check);
    this.failed.add(check);
  }

  error(check: CheckName, code: EvidenceErrorCode, message: string, where: Where = {}): void {
    this.ran.add(check);
    this.failed.add(check);
    // The same problem found twice (an object used by two steps) is reported once.
    const dup = this.errors.some(
      (e) =>
        e.code === code &&
        e.check === check &&
        e.object_id === where.object_id &&
        e.kid === where.kid &&
        e.message === message,
    );
    if (!dup) this.errors.push({ code, check, message, ...where });
  }

  warn(check: CheckName, code: EvidenceWarningCode, message: string, where: Where = {}): void {
    this.ran.add(check);
    this.warnings.push({ code, check, message, ...where });
  }

  note(text: string): void {
    if (!this.notes.includes(text)) this.notes.push(text);
  }

  hasErrors(): boolean {
    return this.errors.length > 0;
  }

  finish(verifiedAt: Date): VerificationResult {
    const checks = checkNames
      .filter((n) => this.ran.has(n))
      .map((name) => ({ name, passed: !this.failed.has(name) }));
    // A check that could not run (the bundle was unreadable) counts as not passed.
    const allRan = checkNames.every((n) => this.ran.has(n));
    const equivocated = [...this.equivocated].sort();
    return {
      valid: allRan && this.errors.length === 0 && equivocated.length === 0 && checks.every((c) => c.passed),
      checks,
      errors: this.errors,
      warnings: this.warnings,
      notes: this.notes,
      equivocated_identities: equivocated,
      verified_at: verifiedAt.toISOString(),
    };
  }
}
