import { darken, luminance, type CSSVariablesResolver, type MantineTheme } from "@mantine/core";

/**
 * Colours that read at WCAG AA (4.5:1) in both schemes, whatever the colour: Mantine's palettes keep
 * their hues, but several of its defaults do not reach 4.5:1 (white on a filled red, green, teal or
 * yellow; a light badge's green or yellow text on its own tint; "dimmed" grey text, 3.3:1 on white
 * and 4:1 on the dark body). For every colour of the theme this picks, from the shade Mantine would
 * use, the first darkening that reaches the ratio against the backgrounds it is drawn on, so a state's
 * colour (status.ts) keeps its meaning and never costs its words their legibility. axe-core checks
 * every page in both schemes (test/dashboard/every-page.test.ts).
 */
const AA = 4.5;
const WHITE = "#ffffff";

export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** `color`, darkened in small steps until it reads at 4.5:1 (a little more, for rounding) on every background. */
export function readable(color: string, backgrounds: string[]): string {
  for (let step = 0; step <= 20; step++) {
    const candidate = step === 0 ? color : darken(color, step / 20);
    if (backgrounds.every((b) => contrast(candidate, b) >= AA + 0.1)) return candidate;
  }
  return "#000000";
}

export const contrastResolver: CSSVariablesResolver = (theme: MantineTheme) => {
  const light: Record<string, string> = {};
  const dark: Record<string, string> = {};
  for (const [name, shades] of Object.entries(theme.colors)) {
    // Filled buttons and badges carry white text; in the light scheme the same colour is also text on white.
    const filledLight = readable(shades[7]!, [WHITE]);
    light[`--mantine-color-${name}-filled`] = filledLight;
    light[`--mantine-color-${name}-filled-hover`] = darken(filledLight, 0.1);
    light[`--mantine-color-${name}-outline`] = filledLight;
    // A light badge: shade 9 text on the colour's tint (and on the tint a hovered one has).
    light[`--mantine-color-${name}-light-color`] = readable(shades[9]!, [shades[1]!, shades[2]!]);
    const filledDark = readable(shades[8]!, [WHITE]);
    dark[`--mantine-color-${name}-filled`] = filledDark;
    dark[`--mantine-color-${name}-filled-hover`] = darken(filledDark, 0.1);
  }
  // Secondary text and placeholders: on white, on the light grey of code and cards, and on the tint of
  // an alert of any colour in the light scheme; on the body and on cards in the dark one.
  // ("dark" is a palette of greys for the dark scheme, never an alert's tint in the light one.)
  const tints = Object.entries(theme.colors)
    .filter(([name]) => name !== "dark")
    .map(([, shades]) => shades[1]!);
  const secondaryLight = readable(theme.colors.gray[6]!, [WHITE, theme.colors.gray[1]!, ...tints]);
  const secondaryDark = theme.colors.dark[1]!;
  return {
    variables: {},
    light: {
      ...light,
      "--mantine-color-dimmed": secondaryLight,
      "--mantine-color-placeholder": secondaryLight,
    },
    dark: { ...dark, "--mantine-color-dimmed": secondaryDark, "--mantine-color-placeholder": secondaryDark },
  };
};
