import type { Effect, SimulationReport as Report } from "@countersign/protocol/policy";

const effects: Effect[] = ["allow", "require_approval", "deny"];
const countNames: [keyof Report["counts"], string][] = [
  ["recorded", "Recorded calls"],
  ["evaluated", "Evaluated"],
  ["not_evaluable", "Not evaluable"],
  ["argument_dependent", "Depend on arguments"],
  ["less_restricted", "Less restricted"],
  ["more_restricted", "More restricted"],
  ["other_rule", "Decided by another rule"],
  ["other_approvers", "Other approvers"],
  ["same", "Same"],
];

/** A simulation's (or the shadow's) report: counts, the baseline-by-candidate matrix, and the calls decided differently. */
export function SimulationReport({ report, caption }: { report: Report; caption: string }) {
  return (
    <div data-testid="simulation-report">
      <h3>{caption}</h3>
      <dl className="counts" data-testid="counts">
        {countNames.map(([k, name]) => (
          <div key={k} data-count={k}>
            <dt>{name}</dt>
            <dd>{report.counts[k]}</dd>
          </div>
        ))}
      </dl>
      {report.matrix ? (
        <table data-testid="matrix">
          <caption>Baseline (rows) by candidate (columns)</caption>
          <thead>
            <tr>
              <th scope="col">Baseline \ candidate</th>
              {effects.map((e) => (
                <th key={e} scope="col">
                  {e}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {effects.map((b) => (
              <tr key={b}>
                <th scope="row">{b}</th>
                {effects.map((c) => (
                  <td key={c} className={b === c ? "same" : undefined}>
                    {report.matrix![b][c]}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">
          No baseline: the candidate would allow {report.candidate_effects.allow}, hold{" "}
          {report.candidate_effects.require_approval} for approval and deny {report.candidate_effects.deny}.
        </p>
      )}
      <h4>Calls decided differently</h4>
      {report.differences.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <table data-testid="differences">
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col">Action</th>
              <th scope="col">Amount</th>
              <th scope="col">Calls</th>
              <th scope="col">Change</th>
              <th scope="col">Baseline</th>
              <th scope="col">Candidate</th>
            </tr>
          </thead>
          <tbody>
            {report.differences.map((d, i) => (
              <tr key={i}>
                <td>{d.tool}</td>
                <td>{d.action}</td>
                <td>{d.amount ? `${d.amount} ${d.currency ?? ""}` : "—"}</td>
                <td>{d.count}</td>
                <td>{d.change.replace("_", " ")}</td>
                <td>
                  {d.baseline.effect} ({d.baseline.rule_id ?? "default"})
                </td>
                <td>
                  {d.candidate.effect} ({d.candidate.rule_id ?? "default"})
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {report.differences_truncated && (
        <p className="muted">Only the first differences are listed; the counts cover every call.</p>
      )}
    </div>
  );
}
