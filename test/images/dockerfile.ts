/**
 * images/Dockerfile and .dockerignore read the way a container engine reads them, for the image
 * tests on machines without one: stages with their instructions (continuations joined, global
 * ARGs substituted into FROM), COPY sources and flags, exec-form ENTRYPOINT and CMD, and the
 * ignore patterns that decide which files of the build context a COPY can see.
 *
 * Only the instructions images/Dockerfile uses are understood; anything else throws, so a new
 * instruction makes the test ask for teaching instead of being skipped silently.
 */
import { readFileSync } from "node:fs";
import picomatch from "picomatch";

export type Instruction =
  | { kind: "WORKDIR"; path: string; text: string }
  | { kind: "COPY"; from?: string; sources: string[]; destination: string; text: string }
  | { kind: "RUN"; command: string; text: string }
  | { kind: "ENV"; values: Record<string, string>; text: string }
  | { kind: "USER"; user: string; text: string }
  | { kind: "EXPOSE"; ports: string[]; text: string }
  | { kind: "ENTRYPOINT"; argv: string[]; text: string }
  | { kind: "CMD"; argv: string[]; text: string };

export interface Stage {
  name: string;
  /** The base image after global ARG substitution (a previous stage's name, or an image reference). */
  base: string;
  instructions: Instruction[];
}

export interface Dockerfile {
  /** ARGs declared before the first FROM, with their defaults. */
  args: Record<string, string>;
  stages: Stage[];
}

/** Logical lines: comments and blank lines dropped, backslash continuations joined. */
function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (pending === "" && (line === "" || line.startsWith("#"))) continue;
    if (pending !== "" && line.startsWith("#")) continue; // comments inside a continued RUN
    if (line.endsWith("\\")) {
      pending += line.slice(0, -1).trimEnd() + " ";
      continue;
    }
    lines.push((pending + line).trim());
    pending = "";
  }
  if (pending !== "") throw new Error("Dockerfile ends inside a line continuation");
  return lines;
}

function substitute(text: string, args: Record<string, string>): string {
  return text.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a: string | undefined, b: string | undefined) => {
    const name = (a ?? b)!;
    if (!(name in args)) throw new Error(`Dockerfile uses \${${name}} without an ARG default`);
    return args[name]!;
  });
}

function execForm(rest: string, what: string): string[] {
  let argv: unknown;
  try {
    argv = JSON.parse(rest);
  } catch {
    throw new Error(`${what} must use the exec form (a JSON array), found: ${rest}`);
  }
  if (!Array.isArray(argv) || !argv.every((a) => typeof a === "string"))
    throw new Error(`${what} must be a JSON array of strings`);
  return argv;
}

function parseEnv(rest: string): Record<string, string> {
  if (!rest.includes("=")) {
    const [key, ...value] = rest.split(/\s+/);
    return { [key!]: value.join(" ") };
  }
  const values: Record<string, string> = {};
  for (const pair of rest.match(/\S+="[^"]*"|\S+/g) ?? []) {
    const at = pair.indexOf("=");
    if (at < 1) throw new Error(`ENV pair without a name: ${pair}`);
    values[pair.slice(0, at)] = pair.slice(at + 1).replace(/^"(.*)"$/, "$1");
  }
  return values;
}

function parseCopy(rest: string, text: string): Instruction {
  const words = rest.split(/\s+/);
  let from: string | undefined;
  while (words[0]?.startsWith("--")) {
    const flag = words.shift()!;
    if (flag.startsWith("--from=")) from = flag.slice("--from=".length);
    else throw new Error(`COPY flag ${flag} is not understood by test/images/dockerfile.ts`);
  }
  if (words.length < 2) throw new Error(`COPY needs a source and a destination: ${text}`);
  const destination = words.pop()!;
  if (words.length > 1 && !destination.endsWith("/"))
    throw new Error(`COPY of several sources needs a destination ending in /: ${text}`);
  if (words.some((w) => /[*?[]/.test(w)))
    throw new Error(`COPY wildcards are not understood by test/images/dockerfile.ts: ${text}`);
  return { kind: "COPY", ...(from === undefined ? {} : { from }), sources: words, destination, text };
}

export function parseDockerfile(text: string): Dockerfile {
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of logicalLines(text)) {
    const match = /^(\w+)\s+(.*)$/s.exec(line);
    if (!match) throw new Error(`Dockerfile line not understood: ${line}`);
    const keyword = match[1]!.toUpperCase();
    const rest = match[2]!.trim();
    const stage = stages.at(-1);
    if (keyword === "ARG") {
      const [name, value] = rest.split("=", 2) as [string, string | undefined];
      if (stage) throw new Error("ARG inside a stage is not understood by test/images/dockerfile.ts");
      args[name] = value ?? "";
      continue;
    }
    if (keyword === "FROM") {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      if (!from) throw new Error(`FROM not understood: ${line}`);
      stages.push({
        base: substitute(from[1]!, args),
        name: from[2] ?? String(stages.length),
        instructions: [],
      });
      continue;
    }
    if (!stage) throw new Error(`${keyword} before the first FROM`);
    const push = (i: Instruction) => stage.instructions.push(i);
    switch (keyword) {
      case "WORKDIR":
        push({ kind: "WORKDIR", path: rest, text: line });
        break;
      case "COPY":
        push(parseCopy(rest, line));
        break;
      case "RUN":
        push({ kind: "RUN", command: rest, text: line });
        break;
      case "ENV":
        push({ kind: "ENV", values: parseEnv(rest), text: line });
        break;
      case "USER":
        push({ kind: "USER", user: rest, text: line });
        break;
      case "EXPOSE":
        push({ kind: "EXPOSE", ports: rest.split(/\s+/), text: line });
        break;
      case "ENTRYPOINT":
      case "CMD":
        push({ kind: keyword, argv: execForm(rest, keyword), text: line });
        break;
      default:
        throw new Error(`Dockerfile instruction ${keyword} is not understood by test/images/dockerfile.ts`);
    }
  }
  if (stages.length === 0) throw new Error("Dockerfile has no FROM");
  return { args, stages };
}

export const readDockerfile = (file: string): Dockerfile => parseDockerfile(readFileSync(file, "utf8"));

/** The last value an instruction kind sets in a stage (USER, ENTRYPOINT, CMD), or undefined. */
export function last<K extends Instruction["kind"]>(
  stage: Stage,
  kind: K,
): Extract<Instruction, { kind: K }> | undefined {
  return stage.instructions.filter((i): i is Extract<Instruction, { kind: K }> => i.kind === kind).at(-1);
}

/** Environment a stage's ENV instructions set, in order. */
export const stageEnv = (stage: Stage): Record<string, string> =>
  Object.assign(
    {},
    ...stage.instructions
      .filter((i) => i.kind === "ENV")
      .map((i) => (i as { values: Record<string, string> }).values),
  );

/**
 * A .dockerignore as the engine applies it to the build context: a path is left out when it
 * matches a pattern (`**` any number of folders), and everything under a left-out folder with it.
 * Exceptions (`!pattern`) are not used by this repository and are refused rather than guessed.
 */
export function dockerignore(text: string): (relativePath: string) => boolean {
  const patterns = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((l) => l.replace(/^\/+/, "").replace(/\/+$/, ""));
  if (patterns.some((p) => p.startsWith("!")))
    throw new Error(".dockerignore exceptions (!) are not understood by test/images/dockerfile.ts");
  const matchers = patterns.map((p) => picomatch(p, { dot: true }));
  return (relativePath) => {
    const parts = relativePath.split("/");
    // A path is ignored when it, or any folder above it, matches.
    for (let n = 1; n <= parts.length; n++) {
      const prefix = parts.slice(0, n).join("/");
      if (matchers.some((m) => m(prefix))) return true;
    }
    return false;
  };
}
