import {
  Alert,
  Anchor,
  AppShell,
  Burger,
  Button,
  Group,
  NativeSelect,
  NavLink,
  ScrollArea,
  Text,
} from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { Link, NavLink as RouterNavLink, Outlet, useLocation, useNavigate } from "react-router";
import { organizationsApi } from "../api/organizations.js";
import { useSession, useSignedIn } from "../session/session.js";
import { navigation } from "./navigation.js";
import { orgPath, useCurrentOrganization, useOrganizations } from "../session/organization.js";
import { Breadcrumbs } from "./Breadcrumbs.js";

/**
 * The one layout of signed-in pages: a header with the organization switcher, the person's account
 * and sign-out; the navigation the person's role allows, in groups; breadcrumbs above each page.
 */
export function Shell() {
  const session = useSignedIn();
  const { signOut, changedElsewhere } = useSession();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const orgs = useOrganizations();
  const { orgId, org } = useCurrentOrganization();
  const [opened, { toggle, close }] = useDisclosure();
  // The API reference's viewer (Scalar) brings its own main landmark: on its page the shell's is a plain
  // container, so the page keeps one main landmark at the top level.
  const main =
    pathname === "/api-reference" ? { renderRoot: (p: Record<string, unknown>) => <div {...p} /> } : {};
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={org ? { width: 232, breakpoint: "sm", collapsed: { mobile: !opened } } : undefined}
      padding="lg"
    >
      <Anchor href="#content" className="skip-link">
        Skip to content
      </Anchor>
      <AppShell.Header>
        <Group h="100%" px="md" gap="md" wrap="nowrap">
          {org && (
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Navigation" />
          )}
          <Text fw={700} size="lg" mr="auto" component={Link} to="/">
            Countersign
          </Text>
          <NativeSelect
            aria-label="Organization"
            size="xs"
            value={orgId}
            onChange={(e) => {
              const id = e.currentTarget.value;
              if (!id) return navigate("/orgs/new");
              organizationsApi.switchTo(id).catch(() => undefined);
              navigate(orgPath(id));
            }}
            data={[
              { value: "", label: orgs.data?.items.length ? "New organization…" : "Create an organization…" },
              ...(orgs.data?.items.map((o) => ({ value: o.id, label: `${o.name} (${o.role})` })) ?? []),
            ]}
          />
          <Anchor component={RouterNavLink} to="/api-reference" size="sm" visibleFrom="sm">
            API reference
          </Anchor>
          <Anchor component={RouterNavLink} to="/account" size="sm" visibleFrom="sm">
            {session.user.email}
          </Anchor>
          <Button variant="default" size="xs" onClick={() => signOut().then(() => navigate("/sign-in"))}>
            Sign out
          </Button>
        </Group>
      </AppShell.Header>
      {org && (
        <AppShell.Navbar p="xs" component="nav" aria-label="Organization">
          <ScrollArea type="never">
            {navigation.map((g) => {
              const entries = g.entries.filter((e) => !e.shows || e.shows(org.role));
              return (
                <div key={g.group}>
                  <Text
                    component="h2"
                    id={`nav-${g.group}`}
                    size="xs"
                    fw={700}
                    c="dimmed"
                    tt="uppercase"
                    px="sm"
                    mt="md"
                    mb={4}
                  >
                    {g.group}
                  </Text>
                  <ul aria-labelledby={`nav-${g.group}`} style={{ listStyle: "none", margin: 0, padding: 0 }}>
                    {entries.map((e) => {
                      const to = orgPath(orgId, e.path);
                      const active = e.path === "" ? pathname === to : pathname.startsWith(to);
                      return (
                        <li key={e.path}>
                          <NavLink
                            component={RouterNavLink}
                            to={to}
                            end={e.path === ""}
                            label={e.label}
                            active={active}
                            rightSection={e.badge ? <e.badge orgId={orgId} /> : undefined}
                            onClick={close}
                          />
                        </li>
                      );
                    })}
                  </ul>
                </div>
              );
            })}
          </ScrollArea>
        </AppShell.Navbar>
      )}
      <AppShell.Main {...main}>
        {changedElsewhere && (
          <Alert color="yellow" role="alert" data-code="SESSION_CHANGED" mb="md">
            The signed-in account changed in another tab. Changes made here are refused;{" "}
            <Anchor href={window.location.pathname}>reload the page</Anchor>.
          </Alert>
        )}
        <Breadcrumbs org={org} />
        <div id="content" tabIndex={-1}>
          <Outlet />
        </div>
      </AppShell.Main>
    </AppShell>
  );
}
