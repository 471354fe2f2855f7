/** Disclosure levels of SPEC 2.9, lowest first. */
export const disclosureLevels = ["none", "rule", "conditions"] as const;
export type Disclosure = (typeof disclosureLevels)[number];
export type PolicyDisclosure = Disclosure | "inherit";

/** The agent gets the lower of the organization's ceiling and the policy's setting ('inherit' takes the ceiling). */
export function effectiveDisclosure(
  organizationCeiling: Disclosure,
  policySetting: PolicyDisclosure = "inherit",
): Disclosure {
  if (policySetting === "inherit") return organizationCeiling;
  const rank = (d: Disclosure) => disclosureLevels.indexOf(d);
  return rank(policySetting) < rank(organizationCeiling) ? policySetting : organizationCeiling;
}
