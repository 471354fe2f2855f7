import { Alert, Anchor, Stack, Text } from "@mantine/core";
import { Link } from "react-router";
import type { PolicyStatusItem } from "../../api/policies.js";
import { orgPath } from "../../session/organization.js";

type Gap = Pick<
  NonNullable<PolicyStatusItem["unapprovable"]>[number],
  "roles" | "approver_count" | "code" | "members_with_role"
>;

const roleList = (roles: string[]) =>
  roles.length === 0
    ? "no role"
    : roles.length === 1
      ? roles[0]!
      : `${roles.slice(0, -1).join(", ")} or ${roles.at(-1)}`;

/** The one step that lets someone approve the calls a rule holds, for the person reading it. */
export function ApproverFix({
  orgId,
  gap,
  role,
}: {
  orgId: string;
  gap: Gap;
  role: string | null | undefined;
}) {
  if (gap.code === "TOO_MANY_APPROVERS")
    return <>More than 32 approver keys match its roles: name fewer roles in the rule.</>;
  if (gap.roles.length === 0) return <>The rule names no approving role: add one to its approvers.</>;
  if (gap.members_with_role < gap.approver_count)
    return (
      <>
        Fix:{" "}
        <Anchor component={Link} to={orgPath(orgId, "/members")}>
          invite a member
        </Anchor>{" "}
        with the role {roleList(gap.roles)}; they then bind a personal key under Your account.
      </>
    );
  if (role && gap.roles.includes(role))
    return (
      <>
        Fix:{" "}
        <Anchor component={Link} to="/account">
          bind your personal key
        </Anchor>{" "}
        (Your account, “Make and bind a key in this browser”); calls made after that are held for your
        approval.
      </>
    );
  return <>Fix: a member with the role {roleList(gap.roles)} binds a personal key under Your account.</>;
}

/**
 * Policies whose held calls no one can approve now (no member with an approving role has bound a
 * personal key): the Gateway denies those calls NO_APPROVERS instead of holding them, so nothing
 * ever waits on the Approvals page. Shown where people look, with the step that fixes it.
 */
export function NoApprovers({
  orgId,
  items,
  role,
}: {
  orgId: string;
  items: readonly PolicyStatusItem[];
  role: string | null | undefined;
}) {
  const gaps = items.filter((p) => (p.unapprovable ?? []).length > 0);
  if (gaps.length === 0) return null;
  return (
    <Alert
      color="orange"
      variant="light"
      role="alert"
      title="Held calls no one can approve"
      data-testid="no-approvers"
      data-code="NO_APPROVERS"
    >
      <Stack gap="xs">
        {gaps.map((p) =>
          p.unapprovable!.map((gap) => (
            <Text size="sm" key={`${p.policy_id}:${gap.rule_id ?? ""}`}>
              No one can approve the calls that policy{" "}
              <Anchor component={Link} to={orgPath(orgId, `/policies/${p.policy_id}`)}>
                {p.name}
              </Anchor>{" "}
              {p.active_version?.id === gap.version_id ? "holds" : "would hold once activated"} by{" "}
              {gap.rule_id ? `rule ${gap.rule_id}` : "its default"}: they are denied ({gap.code}) instead of
              waiting here, because no {roleList(gap.roles)} has a personal key bound.{" "}
              <ApproverFix orgId={orgId} gap={gap} role={role} />
            </Text>
          )),
        )}
      </Stack>
    </Alert>
  );
}
