import { parseAllDocuments } from "yaml";

/**
 * Policies as people keep them in files: a policy document (JSON or YAML), or
 * `countersign.dev` Policy custom resources (one YAML file may hold several,
 * among other resources), so a GitOps repository can check exactly what it
 * commits. Examples come in the Cloud API's shape (`expected_outcome`) or the
 * resource's (`expectedOutcome`); both become the Cloud API's.
 */
export interface PolicySource {
  /** How to name it in a report: `Policy <namespace>/<name>` or `document`. */
  name: string;
  document: unknown;
  /** The saved examples the file carries (a Policy resource's `spec.examples`), not yet validated. */
  examples?: unknown[];
}

export class PolicySourceError extends Error {
  override name = "PolicySourceError";
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Every YAML (or JSON, which is YAML) document of a file's text; a syntax error names its line. */
function yamlDocuments(text: string): unknown[] {
  const docs = parseAllDocuments(text, { prettyErrors: true });
  if (!Array.isArray(docs)) return [];
  for (const d of docs) {
    const error = d.errors[0];
    if (error) {
      const line = error.linePos?.[0]?.line;
      throw new PolicySourceError(
        `not valid YAML or JSON${line ? ` (line ${line})` : ""}: ${error.message.split("\n")[0]}`,
      );
    }
  }
  return docs
    .map((d) => d.toJS({ maxAliasCount: 100 }) as unknown)
    .filter((v) => v !== null && v !== undefined);
}

const isPolicyResource = (v: Record<string, unknown>) =>
  v.kind === "Policy" && typeof v.apiVersion === "string" && v.apiVersion.startsWith("countersign.dev/");

/** A saved example in the Cloud API's shape; the resource's camelCase members are renamed. */
export function exampleFromResource(example: unknown): unknown {
  if (!isRecord(example) || !("expectedOutcome" in example || "expectedRule" in example)) return example;
  const { expectedOutcome, expectedRule, ...rest } = example;
  return { ...rest, expected_outcome: expectedOutcome, expected_rule: expectedRule ?? "" };
}

/** The policies of a file's text: its Policy resources, or the one policy document it is. */
export function policySources(text: string): PolicySource[] {
  const docs = yamlDocuments(text);
  const resources = docs.filter((d): d is Record<string, unknown> => isRecord(d) && isPolicyResource(d));
  if (resources.length > 0) {
    return resources.map((r) => {
      const metadata = isRecord(r.metadata) ? r.metadata : {};
      const spec = isRecord(r.spec) ? r.spec : {};
      const where = [metadata.namespace, metadata.name].filter((p) => typeof p === "string").join("/");
      return {
        name: `Policy ${where || "(unnamed)"}`,
        document: spec.document,
        examples: Array.isArray(spec.examples) ? spec.examples.map(exampleFromResource) : [],
      };
    });
  }
  const documents = docs.filter((d) => !(isRecord(d) && typeof d.kind === "string"));
  if (documents.length === 1) return [{ name: "document", document: documents[0] }];
  if (documents.length > 1)
    throw new PolicySourceError("holds several documents and none is a Policy resource");
  throw new PolicySourceError("holds no policy document and no countersign.dev Policy resource");
}

/** Examples from a file of their own: a list, `{examples: [...]}`, or the Policy resources' examples. */
export function examplesSource(text: string): unknown[] {
  const docs = yamlDocuments(text);
  const [only] = docs;
  if (docs.length === 1 && Array.isArray(only)) return only.map(exampleFromResource);
  if (docs.length === 1 && isRecord(only) && Array.isArray(only.examples))
    return only.examples.map(exampleFromResource);
  const fromResources = docs.filter((d): d is Record<string, unknown> => isRecord(d) && isPolicyResource(d));
  if (fromResources.length > 0) return policySources(text).flatMap((s) => s.examples ?? []);
  throw new PolicySourceError("holds no list of examples (a YAML or JSON list, or {examples: [...]})");
}
