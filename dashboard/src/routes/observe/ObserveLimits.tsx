import { Alert } from "@mantine/core";
import type { Organization } from "@countersign/protocol/wire";

/** The organization's observe settings, read before starting a window (the owner sets them). */
export function ObserveLimits({ org }: { org: Organization }) {
  const live = org.observe_live_opt_in === true;
  return (
    <Alert variant="light" color="gray" data-testid="observe-limits" p="sm">
      {org.observe_max_hours === 0 ? (
        <>Observe windows are off here: the owner sets the longest window under Settings.</>
      ) : (
        <>
          A window lasts at most <strong>{org.observe_max_hours} hours</strong> here, and{" "}
          {live
            ? "may cover live keys too"
            : "covers test keys only (the owner has not opted in to live keys)"}
          . Explicit deny rules, guards and delegations stay enforced; a window is never extended.
        </>
      )}
    </Alert>
  );
}
