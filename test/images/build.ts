/**
 * Builds images/Dockerfile without a container engine, for the image tests: every stage gets a
 * folder standing for its root filesystem, and its instructions are carried out as the engine
 * would: WORKDIR and ENV as state, COPY from the build context (through .dockerignore) or from an
 * earlier stage's folder, RUN verbatim with `/bin/sh -c` in the stage's working directory. The base
 * image's Node and npm are this machine's.
 *
 * Like the engine's layer cache, the folder after each RUN is kept under .cache/images/layers/,
 * keyed by everything the RUN depends on (the base, every instruction before it, the content of
 * every file copied), so `npm ci` runs again only when a package.json or package-lock.json
 * changes, and `tsc -b` only when a source file does.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { dockerignore, last, type Dockerfile, type Instruction, type Stage } from "./dockerfile.js";

export interface BuiltStage {
  name: string;
  /** The folder standing for the stage's `/`. */
  rootfs: string;
  /** The container path of the last WORKDIR. */
  workdir: string;
  env: Record<string, string>;
  user: string | undefined;
  entrypoint: string[];
  cmd: string[];
}

export interface BuildOptions {
  dockerfile: Dockerfile;
  /** The build context (the repository root). */
  context: string;
  /** Where the stages' folders are made (emptied first). */
  work: string;
  /** The layer cache. */
  cache: string;
  /** Layers unused for this long are removed after a build. */
  keepUnusedMs?: number;
}

function sh(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile("/bin/sh", ["-c", command], { cwd, env, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      resolve({
        code: error ? (typeof error.code === "number" ? error.code : 1) : 0,
        output: stdout + stderr,
      });
    });
  });
}

/** `cp -a from/. to/`: contents of a folder, links kept as links, modes and times kept. */
async function copyTree(from: string, to: string): Promise<void> {
  mkdirSync(to, { recursive: true });
  const res = await sh(`cp -a "${from}/." "${to}/"`, "/", process.env);
  if (res.code !== 0) throw new Error(`copying ${from} to ${to}: ${res.output}`);
}

/** One file or link, mode kept (what COPY does with each file). */
function copyFile(from: string, to: string): void {
  mkdirSync(path.dirname(to), { recursive: true });
  rmSync(to, { force: true });
  const st = lstatSync(from);
  if (st.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
  else {
    copyFileSync(from, to);
    chmodSync(to, st.mode & 0o7777);
  }
}

/** A digest of a file or folder: relative paths, kinds, executable bits, contents, link targets. */
function contentHash(
  file: string,
  ignored: (relative: string) => boolean = () => false,
  relative = "",
): string {
  const hash = createHash("sha256");
  const walk = (abs: string, rel: string) => {
    if (rel !== "" && ignored(rel)) return;
    const st = lstatSync(abs);
    if (st.isSymbolicLink()) hash.update(`L ${rel} ${readlinkSync(abs)}\n`);
    else if (st.isDirectory()) {
      hash.update(`D ${rel}\n`);
      for (const entry of readdirSync(abs).sort())
        walk(path.join(abs, entry), rel === "" ? entry : `${rel}/${entry}`);
    } else {
      hash.update(`F ${rel} ${st.mode & 0o111 ? "x" : "-"} ${st.size}\n`);
      hash.update(readFileSync(abs));
    }
  };
  walk(file, relative);
  return hash.digest("hex");
}

/** Copies what the context holds at `source` (a file or folder), leaving out what .dockerignore leaves out. */
async function copyFromContext(
  context: string,
  source: string,
  to: string,
  ignored: (relative: string) => boolean,
): Promise<void> {
  const walk = async (rel: string, dest: string) => {
    if (ignored(rel)) return;
    const abs = path.join(context, rel);
    const st = lstatSync(abs);
    if (st.isDirectory()) {
      mkdirSync(dest, { recursive: true });
      for (const entry of readdirSync(abs)) await walk(`${rel}/${entry}`, path.join(dest, entry));
    } else copyFile(abs, dest);
  };
  const st = statSync(path.join(context, source));
  if (st.isDirectory()) {
    mkdirSync(to, { recursive: true });
    for (const entry of readdirSync(path.join(context, source)))
      await walk(source === "." ? entry : `${source}/${entry}`, path.join(to, entry));
  } else await walk(source, to);
}

interface StageState {
  workdir: string;
  env: Record<string, string>;
}

const resolveIn = (workdir: string, p: string) =>
  path.posix.isAbsolute(p) ? p : path.posix.join(workdir, p);

/** The environment of a RUN: the base image's PATH (this machine's node), a private HOME and npm cache, the stage's ENV. */
function runEnv(state: StageState, work: string, stage: string): NodeJS.ProcessEnv {
  const home = path.join(work, `home-${stage}`);
  mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    npm_config_cache: path.join(work, "npm-cache"),
    npm_config_update_notifier: "false",
    ...state.env,
  };
  if (process.env.npm_config_registry) env.npm_config_registry = process.env.npm_config_registry;
  return env;
}

/**
 * A private npm cache for the RUNs, linked from this machine's (so `npm ci` reads packages it
 * already has, and a RUN's `npm cache clean` empties only the private one).
 */
async function seedNpmCache(work: string): Promise<void> {
  const mine = path.join(os.homedir(), ".npm", "_cacache");
  const target = path.join(work, "npm-cache");
  mkdirSync(target, { recursive: true });
  if (!existsSync(mine)) return;
  const linked = await sh(`cp -al "${mine}" "${target}/_cacache"`, "/", process.env);
  if (linked.code !== 0) await sh(`rm -rf "${target}/_cacache"`, "/", process.env); // another file system: start empty
}

export async function buildWithoutEngine(options: BuildOptions): Promise<BuiltStage[]> {
  const { dockerfile, context, work, cache } = options;
  const ignoreFile = path.join(context, ".dockerignore");
  const ignored = existsSync(ignoreFile) ? dockerignore(readFileSync(ignoreFile, "utf8")) : () => false;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true, mode: 0o755 });
  mkdirSync(path.join(cache, "layers"), { recursive: true });
  await seedNpmCache(work);
  const built: BuiltStage[] = [];
  const used = new Set<string>();
  // Final keys by stage name, for stages built on an earlier stage.
  const keysOf = new Map<string, string>();

  for (const [index, stage] of dockerfile.stages.entries()) {
    const rootfs = path.join(work, `${index}-${stage.name}`);
    mkdirSync(rootfs, { mode: 0o755 });
    const parent = built.find((b) => b.name === stage.base);
    const state: StageState = { workdir: parent?.workdir ?? "/", env: { ...(parent?.env ?? {}) } };
    const stageOf = (name: string) => {
      const b = built.find((s) => s.name === name);
      if (!b) throw new Error(`COPY --from=${name}: no earlier stage of that name`);
      return b;
    };

    // Pass 1: the cache key after every instruction (only stages with a RUN need keys).
    const hasRun = stage.instructions.some((i) => i.kind === "RUN");
    const keys: string[] = [];
    let key = createHash("sha256")
      .update(`FROM ${stage.base} ${parent ? keysOf.get(parent.name) : ""}`)
      .digest("hex");
    for (const instruction of stage.instructions) {
      if (hasRun) {
        const h = createHash("sha256").update(key).update(instruction.text);
        if (instruction.kind === "COPY") {
          for (const source of instruction.sources) {
            h.update(
              instruction.from === undefined
                ? contentHash(path.join(context, source), ignored, source === "." ? "" : source)
                : contentHash(path.join(stageOf(instruction.from).rootfs, source)),
            );
          }
        }
        key = h.digest("hex");
      }
      keys.push(key);
    }
    keysOf.set(stage.name, key);

    // The last RUN whose layer is cached: start from it, and carry out only what follows.
    let resumeAfter = -1;
    if (hasRun) {
      for (const [i, instruction] of stage.instructions.entries()) {
        if (instruction.kind === "RUN" && existsSync(path.join(cache, "layers", keys[i]!))) resumeAfter = i;
      }
    }
    if (resumeAfter >= 0) {
      const layer = path.join(cache, "layers", keys[resumeAfter]!);
      await copyTree(layer, rootfs);
      used.add(keys[resumeAfter]!);
    } else if (parent) await copyTree(parent.rootfs, rootfs);

    for (const [i, instruction] of stage.instructions.entries()) {
      const effects = i > resumeAfter;
      await apply(instruction, { effects, state, rootfs, context, ignored, stageOf, work, stage });
      if (instruction.kind === "RUN" && effects) {
        const layer = path.join(cache, "layers", keys[i]!);
        const partial = `${layer}.partial-${process.pid}`;
        await copyTree(rootfs, partial);
        try {
          renameSync(partial, layer);
        } catch {
          rmSync(partial, { recursive: true, force: true }); // another run stored the same layer first
        }
        used.add(keys[i]!);
      }
    }

    built.push({
      name: stage.name,
      rootfs,
      workdir: state.workdir,
      env: state.env,
      user: last(stage, "USER")?.user ?? parent?.user,
      entrypoint: last(stage, "ENTRYPOINT")?.argv ?? parent?.entrypoint ?? [],
      cmd: last(stage, "CMD")?.argv ?? parent?.cmd ?? [],
    });
  }

  forgetUnusedLayers(cache, used, options.keepUnusedMs ?? 10 * 60_000);
  return built;
}

async function apply(
  instruction: Instruction,
  o: {
    effects: boolean;
    state: StageState;
    rootfs: string;
    context: string;
    ignored: (relative: string) => boolean;
    stageOf: (name: string) => BuiltStage;
    work: string;
    stage: Stage;
  },
): Promise<void> {
  const { state, rootfs } = o;
  const inRoot = (containerPath: string) => path.join(rootfs, containerPath);
  switch (instruction.kind) {
    case "WORKDIR":
      state.workdir = resolveIn(state.workdir, instruction.path);
      if (o.effects) mkdirSync(inRoot(state.workdir), { recursive: true, mode: 0o755 });
      return;
    case "ENV":
      Object.assign(state.env, instruction.values);
      return;
    case "COPY": {
      if (!o.effects) return;
      const destination = resolveIn(state.workdir, instruction.destination);
      const intoFolder = instruction.destination.endsWith("/") || instruction.sources.length > 1;
      for (const source of instruction.sources) {
        if (instruction.from === undefined) {
          const relative = path.posix.normalize(source).replace(/\/$/, "");
          if (relative.startsWith(".."))
            throw new Error(`${instruction.text}: ${source} is outside the build context`);
          if (relative !== "." && o.ignored(relative))
            throw new Error(`${instruction.text}: ${source} is left out by .dockerignore`);
          const abs = path.join(o.context, relative);
          if (!existsSync(abs)) throw new Error(`${instruction.text}: ${source} is not in the build context`);
          const isFile = !statSync(abs).isDirectory();
          const to = inRoot(
            isFile && intoFolder ? path.posix.join(destination, path.posix.basename(relative)) : destination,
          );
          await copyFromContext(o.context, relative, to, o.ignored);
        } else {
          const from = o.stageOf(instruction.from);
          const abs = path.join(from.rootfs, source);
          if (!existsSync(abs))
            throw new Error(`${instruction.text}: ${source} does not exist in stage ${instruction.from}`);
          if (statSync(abs).isDirectory()) await copyTree(abs, inRoot(destination));
          else
            copyFile(
              abs,
              inRoot(intoFolder ? path.posix.join(destination, path.posix.basename(source)) : destination),
            );
        }
      }
      return;
    }
    case "RUN": {
      if (!o.effects) return;
      const res = await sh(instruction.command, inRoot(state.workdir), runEnv(state, o.work, o.stage.name));
      if (res.code !== 0)
        throw new Error(
          `${instruction.text}\nfailed with status ${res.code} in stage ${o.stage.name}:\n${res.output.slice(-4000)}`,
        );
      return;
    }
    case "USER":
    case "EXPOSE":
    case "ENTRYPOINT":
    case "CMD":
      return; // metadata, read from the stage after the build
  }
}

/** Removes cached layers this build did not use and nobody used recently (keeps the cache from growing with every source change). */
function forgetUnusedLayers(cache: string, used: Set<string>, keepUnusedMs: number): void {
  const dir = path.join(cache, "layers");
  const now = new Date();
  for (const name of readdirSync(dir)) {
    const layer = path.join(dir, name);
    if (used.has(name)) {
      utimesSync(layer, now, now);
      continue;
    }
    if (name.includes(".partial-")) continue;
    if (now.getTime() - statSync(layer).mtimeMs > keepUnusedMs)
      rmSync(layer, { recursive: true, force: true });
  }
}
