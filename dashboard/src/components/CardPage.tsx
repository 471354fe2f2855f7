import { Alert, Container, Paper, Stack, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";
import { Link } from "react-router";

/**
 * A page outside the shell (sign-in, sign-up, the pages e-mail links open, a missing page): the
 * product's name above one centred card with the page's one h1; `below` holds the ways on (links).
 * Its Container is the page's main landmark, as AppShell.Main is for pages in the shell.
 */
export function CardPage({
  title,
  description,
  children,
  below,
}: {
  title: string;
  description?: ReactNode;
  children?: ReactNode;
  below?: ReactNode;
}) {
  return (
    <Container size="xs" component="main" py={48}>
      <Stack gap="lg">
        <Text component={Link} to="/" fw={700} size="xl" ta="center">
          Countersign
        </Text>
        <Paper withBorder shadow="sm" radius="md" p="xl">
          <Stack gap="md">
            <Title order={1} size="h2">
              {title}
            </Title>
            {description && (
              <Text c="dimmed" size="sm">
                {description}
              </Text>
            )}
            {children}
          </Stack>
        </Paper>
        {below && (
          <Stack gap={6} align="center">
            {below}
          </Stack>
        )}
      </Stack>
    </Container>
  );
}

/** What a finished form says (a link was sent, the address is verified), read out when it appears. */
export function Done({ children }: { children: ReactNode }) {
  return (
    <Alert role="status" color="green" variant="light" data-testid="done">
      {children}
    </Alert>
  );
}
