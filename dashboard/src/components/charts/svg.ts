import type { CSSProperties } from "react";
import { statusColor } from "../../theme/status.js";

/**
 * The charts are plain SVG painted with the theme's CSS variables, so they follow the light or dark
 * scheme without a charting library in the main chunk. Inline styles set by React pass the
 * dashboard's content security policy (they are not <style> elements).
 */
export const axis: CSSProperties = { stroke: "var(--mantine-color-default-border)" };
export const label: CSSProperties = { fill: "var(--mantine-color-dimmed)", fontSize: 10 };
/** A state's one colour (theme/status.ts), as the badges show it. */
export const fillOf = (status: string): CSSProperties => ({
  fill: `var(--mantine-color-${statusColor(status)}-filled)`,
});
export const primaryFill: CSSProperties = { fill: "var(--mantine-primary-color-filled)" };
