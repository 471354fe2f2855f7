import { Box, Group, Stack, Text, Tooltip } from "@mantine/core";
import type { DecisionMap, MapEntry } from "@countersign/protocol/policy";
import { statusColor } from "../../theme/status.js";
import { band, outcomeStatus, outcomeText } from "./decision-map-text.js";

const effectWord = (e: MapEntry) =>
  e.decision ? e.decision.effect.replace("_", " ") : "depends on the arguments";

/** A band's short name on the strip: its bounds without the currency. */
const short = (a: MapEntry["amount"]) => {
  if (!a) return "any call";
  if (a.gte !== undefined && a.lte === a.gte) return `= ${a.gte}`;
  if (a.lt !== undefined && a.gt === undefined && a.gte === undefined) return `< ${a.lt}`;
  if (a.lte !== undefined && a.gt === undefined && a.gte === undefined) return `≤ ${a.lte}`;
  if ((a.gt !== undefined || a.gte !== undefined) && a.lt === undefined && a.lte === undefined)
    return a.gt !== undefined ? `> ${a.gt}` : `≥ ${a.gte}`;
  if (a.gt === undefined && a.gte === undefined && a.lt === undefined && a.lte === undefined) return "any";
  return `${a.gt ?? a.gte} – ${a.lt ?? a.lte}`;
};

/**
 * The decision map as a picture: for each tool (and currency), a strip of its amount bands from
 * the smallest up, each band in the colour of what it decides (allowed, held for approval, denied,
 * or depending on the arguments). Bands are drawn the same width: the strip shows order, not scale.
 * The strip's accessible name is the sentence of its bands; the table below has every band in full.
 */
export function DecisionMapPicture({ map }: { map: DecisionMap }) {
  const strips = map.tools.flatMap((t) => {
    const byCurrency = new Map<string, MapEntry[]>();
    for (const e of t.entries) {
      const c = e.amount ? (e.amount.currency ?? "other currencies") : "";
      byCurrency.set(c, [...(byCurrency.get(c) ?? []), e]);
    }
    return [...byCurrency].map(([currency, entries]) => ({
      tool: t.tool,
      action: t.action,
      currency,
      entries,
    }));
  });
  return (
    <Stack gap="sm" data-testid="decision-map-picture">
      {strips.map((s) => {
        const summary = `${s.tool}${s.currency ? ` in ${s.currency}` : ""}: ${s.entries
          .map((e) => `${band(e.amount)}, ${e.decision ? outcomeText(e.decision) : effectWord(e)}`)
          .join("; ")}`;
        return (
          <Stack key={`${s.tool}-${s.currency}`} gap={4} data-testid="map-strip" data-tool={s.tool}>
            <Text size="sm" fw={600}>
              {s.tool}{" "}
              <Text span c="dimmed" inherit fw={400}>
                ({s.action}
                {s.currency ? `, amounts in ${s.currency}` : ""})
              </Text>
            </Text>
            <Group gap={2} wrap="nowrap" role="img" aria-label={summary}>
              {s.entries.map((e, i) => {
                const color = statusColor(outcomeStatus(e));
                return (
                  <Tooltip key={i} label={`${band(e.amount)}: ${effectWord(e)}`} withArrow>
                    <Box
                      flex={1}
                      miw={0}
                      px={6}
                      py={4}
                      bg={`var(--mantine-color-${color}-light)`}
                      c={`var(--mantine-color-${color}-light-color)`}
                      data-effect={e.decision?.effect ?? "depends"}
                      data-band={band(e.amount)}
                      style={{ borderRadius: 4, overflow: "hidden" }}
                    >
                      <Text size="xs" fw={700} truncate inherit>
                        {short(e.amount)}
                      </Text>
                      <Text size="xs" truncate inherit>
                        {effectWord(e)}
                      </Text>
                    </Box>
                  </Tooltip>
                );
              })}
            </Group>
          </Stack>
        );
      })}
    </Stack>
  );
}
