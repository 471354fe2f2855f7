import { NativeSelect } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { policies } from "../../api/policies.js";

/** The agent's policy, chosen among the organization's (a native select: one choice, keyboard-native). */
export function PolicySelect({
  orgId,
  name = "policy_id",
  defaultValue,
}: {
  orgId: string;
  name?: string;
  defaultValue?: string | null;
}) {
  const list = useQuery({ queryKey: ["policies", orgId], queryFn: () => policies.list(orgId) });
  return (
    <NativeSelect
      label="Policy"
      name={name}
      // Remounted once the policies arrive, so the agent's own policy is the one selected.
      key={list.data ? "loaded" : "loading"}
      defaultValue={defaultValue ?? ""}
      data={[
        { value: "", label: "No policy (every call is denied)" },
        ...(list.data?.items.map((p) => ({ value: p.id, label: p.name })) ?? []),
      ]}
      maw={420}
    />
  );
}
