import picomatch from "picomatch";

/**
 * Glob patterns of the language (`matches`, tool lists). picomatch's POSIX
 * syntax: `*` any run without `/`, `**` any run, `?` one character, `[a-z]`,
 * `{a,b}`. Dots are ordinary characters (tool and action names are dotted);
 * a leading `!` is literal so a pattern can never silently invert a rule.
 */
const options: picomatch.PicomatchOptions = { dot: true, nonegate: true };

export type GlobMatcher = (text: string) => boolean;

export function compileGlob(pattern: string): GlobMatcher {
  if (!hasGlobSyntax(pattern)) return (text) => text === pattern;
  return picomatch(pattern, options);
}

/** Whether the pattern compiles; picomatch throws on some malformed input. */
export function globProblem(pattern: string): string | undefined {
  try {
    picomatch.makeRe(pattern, options);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : "invalid pattern";
  }
}

/** A pattern without glob characters matches only itself; lint and compile use the shortcut. */
export function hasGlobSyntax(pattern: string): boolean {
  return /[*?[\]{}()!+@\\]/.test(pattern);
}

/** A pattern that matches every text: `*` on names without `/`, `**` on all. */
export function matchesEverything(pattern: string): boolean {
  return pattern === "**" || pattern === "*";
}
