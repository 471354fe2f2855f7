import { useEffect, useState, type FormEvent } from "react";
import { policyEvidenceSchema } from "@countersign/protocol/wire";
import { DashboardError } from "../../api/errors.js";
import { policies, type Policy } from "../../api/policies.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";

const day = 86_400_000;
const dateOnly = (t: number) => new Date(t).toISOString().slice(0, 10);

/** The evidence export (Admins): how the policy changed over a period of at most 400 days, as one signed-off JSON file. */
export function EvidenceExport({ orgId, policy }: { orgId: string; policy: Policy }) {
  const [file, setFile] = useState<{ url: string; digest: string; name: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(
    () => () => {
      if (file) URL.revokeObjectURL(file.url);
    },
    [file],
  );

  async function fetchIt(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const d = new FormData(e.currentTarget);
    setError(null);
    try {
      const from = new Date(`${String(d.get("from"))}T00:00:00Z`).toISOString();
      // The end of the chosen day, but never after now.
      const to = new Date(
        Math.min(Date.now(), new Date(`${String(d.get("to"))}T00:00:00Z`).getTime() + day - 1),
      ).toISOString();
      const { bytes } = await policies.evidence(orgId, policy.id, from, to);
      // The export as the wire describes it (docs/policy-rollout.md); its digest is shown to compare.
      const parsed = policyEvidenceSchema.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
      if (!parsed.success)
        throw new DashboardError("INVALID_RESPONSE", "the evidence export is not the expected document");
      setFile({
        url: URL.createObjectURL(
          new Blob([bytes.slice().buffer as ArrayBuffer], { type: "application/json" }),
        ),
        digest: parsed.data.digest,
        name: `policy-${policy.id}-evidence.json`,
      });
    } catch (err) {
      setError(err);
    }
  }

  return (
    <section aria-labelledby="evidence-heading">
      <h2 id="evidence-heading">Evidence export</h2>
      <p className="muted">
        Every version with its document, the activations and rollbacks with what their gates found, the saved
        simulations and the audit entries of a period, with the digest of it all.
      </p>
      <form onSubmit={fetchIt}>
        <label>
          From
          <input name="from" type="date" required defaultValue={dateOnly(Date.now() - 30 * day)} />
        </label>
        <label>
          To
          <input name="to" type="date" required defaultValue={dateOnly(Date.now())} />
        </label>
        <button type="submit">Prepare the export</button>
      </form>
      <ErrorNotice error={error} />
      {file && (
        <p role="status" data-testid="evidence-ready">
          <a href={file.url} download={file.name} className="button">
            Download the evidence
          </a>{" "}
          digest <code>{file.digest}</code>
        </p>
      )}
    </section>
  );
}
