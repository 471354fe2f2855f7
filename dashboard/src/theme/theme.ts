import { createTheme, type MantineColor } from "@mantine/core";

/**
 * The dashboard's one theme on Mantine (docs/dashboard.md "Design system"): Inter (bundled, never
 * fetched from elsewhere), indigo as the colour of things a person can do, and compact tables. The
 * light and dark schemes follow the operating system (`defaultColorScheme="auto"` in main.tsx).
 * Colours that carry a meaning (the states of things) live in status.ts, not on pages.
 */
export const theme = createTheme({
  primaryColor: "indigo",
  // People who asked their system for less motion get dialogs and menus without transitions.
  respectReducedMotion: true,
  // Filled colours are then darkened where needed to keep a 4.5:1 contrast in both schemes (contrast.ts).
  primaryShade: { light: 7, dark: 8 },
  fontFamily: "'Inter Variable', system-ui, sans-serif",
  headings: { fontFamily: "'Inter Variable', system-ui, sans-serif", fontWeight: "650" },
  fontFamilyMonospace: "ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace",
  defaultRadius: "md",
  cursorType: "pointer",
  components: {
    Table: { defaultProps: { verticalSpacing: "xs", highlightOnHover: true } },
    Badge: { defaultProps: { radius: "sm" } },
    // Underlined: a link inside a sentence must not be told from the text by its colour alone.
    Anchor: { defaultProps: { underline: "always" } },
    // The scroll lock of an open dialog keeps the page still without hiding its scrollbar: hiding it
    // writes a <style> element without the page's nonce, which the content security policy refuses.
    // Its close button (an ×) is named, as every button must be.
    Modal: {
      defaultProps: {
        removeScrollProps: { removeScrollBar: false },
        closeButtonProps: { "aria-label": "Close the dialog" },
      },
    },
  },
});

export type { MantineColor };
