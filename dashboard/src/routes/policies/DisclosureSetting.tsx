import { useQueryClient } from "@tanstack/react-query";
import { policyDisclosures } from "@countersign/protocol/wire";
import { policies, type PolicyDisclosure, type Policy, policyKeys } from "../../api/policies.js";
import { ActionForm, choice } from "../../components/ActionForm.js";

const meaning: Record<PolicyDisclosure, string> = {
  inherit: "the organization's setting",
  none: "nothing about the policy",
  rule: "the deciding rule",
  conditions: "the deciding rule and its conditions",
};

/** What agents are told about why a call was decided; not part of any document, so it makes no version. */
export function DisclosureSetting({
  orgId,
  policy,
  mayChange,
}: {
  orgId: string;
  policy: Policy;
  mayChange: boolean;
}) {
  const queryClient = useQueryClient();
  if (!mayChange)
    return (
      <section aria-labelledby="disclosure-heading">
        <h2 id="disclosure-heading">Agent disclosure</h2>
        <p>Agents are told {meaning[policy.agent_disclosure]}.</p>
      </section>
    );
  return (
    <section aria-labelledby="disclosure-heading">
      <h2 id="disclosure-heading">Agent disclosure</h2>
      <ActionForm
        submit="Save the disclosure"
        done={<p role="status">Saved. It applies to the next decisions; no version was made.</p>}
        onSubmit={async (d) => {
          await policies.setDisclosure(orgId, policy.id, choice(d, "agent_disclosure", policyDisclosures));
          await queryClient.invalidateQueries({ queryKey: policyKeys.one(policy.id) });
        }}
      >
        <label>
          Agents are told
          <select name="agent_disclosure" defaultValue={policy.agent_disclosure}>
            {policyDisclosures.map((s) => (
              <option key={s} value={s}>
                {meaning[s]} ({s})
              </option>
            ))}
          </select>
        </label>
      </ActionForm>
    </section>
  );
}
