import { Anchor, Breadcrumbs as MantineBreadcrumbs, Text } from "@mantine/core";
import { Link, useLocation } from "react-router";
import { navigation } from "./navigation.js";
import { orgPath } from "../session/organization.js";
import type { Organization } from "@countersign/protocol/wire";

/**
 * Where the page is: the organization, the area of the navigation, and the item's id when the page
 * shows one thing (an action, a policy…). Read from the address, so every page gets it for free.
 */
export function Breadcrumbs({ org }: { org: Organization | undefined }) {
  const { pathname } = useLocation();
  const m = /^\/orgs\/([^/]+)(\/[^/]+)?(\/[^/]+)?/.exec(pathname);
  if (!m || !org) return null;
  const [, orgId, area, item] = m;
  const entry = navigation.flatMap((g) => g.entries).find((e) => e.path !== "" && e.path === area);
  const crumbs: { label: string; to?: string }[] = [{ label: org.name, to: orgPath(orgId!) }];
  if (entry) crumbs.push({ label: entry.label, to: item ? orgPath(orgId!, entry.path) : undefined });
  if (entry && item) crumbs.push({ label: decodeURIComponent(item.slice(1)) });
  return (
    <MantineBreadcrumbs aria-label="Breadcrumbs" mb="sm" separatorMargin={6}>
      {crumbs.map((c, i) =>
        c.to && i < crumbs.length - 1 ? (
          <Anchor component={Link} to={c.to} key={i} size="sm">
            {c.label}
          </Anchor>
        ) : (
          <Text size="sm" c="dimmed" key={i} aria-current="page" truncate maw={260}>
            {c.label}
          </Text>
        ),
      )}
    </MantineBreadcrumbs>
  );
}
