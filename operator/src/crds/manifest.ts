// The CustomResourceDefinition of one kind, as checked in under crds/.
import { category, group, version, type KindDefinition } from "./kinds.js";
import { toOpenApi } from "./to-openapi.js";

export function customResourceDefinition(def: KindDefinition): Record<string, unknown> {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${def.plural}.${group}` },
    spec: {
      group,
      names: {
        kind: def.kind,
        listKind: `${def.kind}List`,
        plural: def.plural,
        singular: def.singular,
        shortNames: def.shortNames,
        categories: [category],
      },
      scope: "Namespaced",
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: def.columns,
          schema: {
            openAPIV3Schema: {
              type: "object",
              description: def.description,
              required: ["spec"],
              properties: {
                apiVersion: {
                  type: "string",
                  description:
                    "Versioned schema of this representation of an object: countersign.dev/v1alpha1.",
                },
                kind: { type: "string", description: `The kind of this object: ${def.kind}.` },
                // The apiserver allows nothing but the type here (metadata is its own).
                metadata: { type: "object" },
                spec: { ...toOpenApi(def.spec), description: "Desired state, as kept in Git." },
                status: {
                  ...toOpenApi(def.status),
                  description: "What the operator last found and did; written only by the operator.",
                },
              },
            },
          },
        },
      ],
    },
  };
}
