import type { VerificationResult } from "../../crypto/evidence.js";

/** Every check of a verification, its errors and warnings. */
export function VerificationChecks({ result, testId }: { result: VerificationResult; testId: string }) {
  return (
    <div data-testid={testId} data-valid={String(result.valid)}>
      <p className={result.valid ? "ok" : "bad"}>
        {result.valid ? "VALID: every check passed and no signer equivocated." : "NOT VALID"}
      </p>
      <ul>
        {result.checks.map((c) => (
          <li key={c.name}>
            {c.passed ? "✓" : "✗"} {c.name}
          </li>
        ))}
      </ul>
      {result.errors.map((e, i) => (
        <p key={i} className="bad" data-error-code={e.code}>
          {e.code}: {e.message}
        </p>
      ))}
      {result.warnings.map((w, i) => (
        <p key={i} className="muted">
          {w.code}: {w.message}
        </p>
      ))}
    </div>
  );
}
