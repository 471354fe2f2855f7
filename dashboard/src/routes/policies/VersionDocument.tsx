import { useQuery } from "@tanstack/react-query";
import { policies, type PolicyVersion } from "../../api/policies.js";
import { Loaded } from "../../components/Loading.js";

/**
 * One version's whole document, read-only, whatever its status: the policy's read carries only the
 * active, shadow and newest draft documents, so a superseded one (what a rollback would restore,
 * or what an old decision was made under) is fetched by its own route.
 */
export function VersionDocument({
  orgId,
  policyId,
  version,
  onClose,
}: {
  orgId: string;
  policyId: string;
  version: PolicyVersion;
  onClose: () => void;
}) {
  const doc = useQuery({
    queryKey: ["policy-version", policyId, version.id],
    queryFn: () => policies.version(orgId, policyId, version.id),
    staleTime: Infinity, // a version's document never changes
  });
  const heading = `version-${version.number}-document`;
  return (
    <section aria-labelledby={heading} data-testid="version-document" data-document-version={version.number}>
      <h3 id={heading}>
        Document of version {version.number} ({version.status})
      </h3>
      <p className="muted">
        Digest <code>{version.digest}</code>
      </p>
      <Loaded query={doc}>{({ version: v }) => <pre>{JSON.stringify(v.document, null, 2)}</pre>}</Loaded>
      <button type="button" onClick={onClose}>
        Hide the document
      </button>
    </section>
  );
}
