// Organization: binds a namespace to one Cloud API organization. The organization itself is made
// by a person (POST /orgs needs a signed-in owner), who then binds the operator's ServiceAccount to
// it; this resource names it, carries the settings Git should hold, and points at the Secret that
// keeps the organization principal's private key (the spec's "key backup") used to sign delegations.
import { z } from "zod";
import { cloudId, displayName, secretKeySelector, statusBase } from "./fields.js";

export const organizationSpec = z
  .object({
    organizationId: cloudId.min(1).meta({
      description: "Id of the Cloud API organization this namespace is bound to. Immutable.",
      "x-kubernetes-validations": [
        {
          rule: "self == oldSelf",
          message: "organizationId is immutable; create a new Organization instead",
        },
      ],
    }),
    settings: z
      .object({
        name: displayName.optional().meta({ description: "Organization name (SPEC 2.1)." }),
        approvalTtlSeconds: z
          .int()
          .min(60)
          .max(2_592_000)
          .optional()
          .meta({ description: "Default approval lifetime in seconds, 60 to 2592000." }),
        agentDisclosure: z
          .enum(["none", "rule", "conditions"])
          .optional()
          .meta({ description: "Ceiling of what agents are told about a refusal." }),
      })
      .optional()
      .meta({
        description:
          "Settings the operator keeps in the Cloud API. Omitted members are left as they are. Observe and retention settings are owner-only and are not set from Git.",
      }),
    principalKeySecretRef: secretKeySelector.optional().meta({
      description:
        "Secret key holding the organization principal's Ed25519 private key (PKCS#8 PEM). Agents' delegations are signed with it. Never copied into status, events or logs.",
    }),
  })
  .meta({ description: "Which Cloud API organization this namespace configures." });

export const organizationStatus = z.object({
  ...statusBase,
  organizationName: z
    .string()
    .max(200)
    .optional()
    .meta({ description: "The organization's name in the Cloud API." }),
  slug: z.string().max(200).optional().meta({ description: "The organization's slug in the Cloud API." }),
  plan: z.string().max(64).optional().meta({ description: "The organization's plan." }),
  principalKid: z
    .string()
    .max(200)
    .optional()
    .meta({ description: "KID of the organization principal in use." }),
});

export type OrganizationSpec = z.infer<typeof organizationSpec>;
export type OrganizationStatus = z.infer<typeof organizationStatus>;
