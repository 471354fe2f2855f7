/**
 * The command line of the Cloud API commands: `countersign GROUP [SUB]
 * [ARG...] [--flag value] [--switch]`, parsed without a library.
 */
import { usageError } from "./cloud/errors.js";

export interface CommandLine {
  words: string[];
  flags: Map<string, string>;
  switches: Set<string>;
}

const SWITCHES = new Set(["json", "help", "password-stdin"]);

export function parseCommandLine(argv: readonly string[]): CommandLine {
  const words: string[] = [];
  const flags = new Map<string, string>();
  const switches = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "-h") switches.add("help");
    else if (arg.startsWith("--")) {
      const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
      if (SWITCHES.has(name)) switches.add(name);
      else {
        const value = inline ?? argv[++i];
        if (value === undefined) throw usageError(`--${name} needs a value`);
        flags.set(name, value);
      }
    } else words.push(arg);
  }
  return { words, flags, switches };
}

/** Refuses flags a command does not take, so a typo is not silently ignored. */
export function onlyFlags(line: CommandLine, allowed: readonly string[]): void {
  for (const name of line.flags.keys())
    if (!allowed.includes(name)) throw usageError(`unknown option: --${name}`);
}
