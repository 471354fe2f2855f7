/**
 * The invariants of images/Dockerfile, read from the file itself (no container engine needed):
 * several stages, a runtime stage that neither installs nor compiles anything and gets its
 * node_modules only from an `npm ci --omit=dev`, a numeric non-root USER that is the chart's
 * runAsUser, a Node LTS base, the exec-form `node` entry point, and a .dockerignore that keeps
 * this machine's state (node_modules, dist, .data, .cache, .git) out of the build context.
 * test/images/image.test.ts builds and runs what the file describes.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { root } from "../chart/helm.js";
import {
  dockerignore,
  last,
  parseDockerfile,
  readDockerfile,
  type Dockerfile,
  type Stage,
} from "./dockerfile.js";

const dockerfile = readDockerfile(path.join(root, "images/Dockerfile"));
const runtime = dockerfile.stages.at(-1)!;
const stageNamed = (name: string) => dockerfile.stages.find((s) => s.name === name);

/** The external image a stage starts from (following stages built on stages). */
function baseImage(file: Dockerfile, stage: Stage): string {
  const parent = file.stages.find((s) => s.name === stage.base);
  return parent ? baseImage(file, parent) : stage.base;
}

const runs = (stage: Stage) =>
  stage.instructions.filter((i) => i.kind === "RUN").map((i) => (i as { command: string }).command);

describe("images/Dockerfile", () => {
  it("builds in several stages and the runtime stage installs and compiles nothing", () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2);
    for (const command of runs(runtime)) expect(command).not.toMatch(/\b(npm|npx|tsc|yarn|pnpm|corepack)\b/);
    // Everything the runtime holds was made by an earlier stage, none of it copied from the context.
    const copies = runtime.instructions.filter((i) => i.kind === "COPY");
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) expect(copy.from, copy.text).toBeDefined();
  });

  it("takes every node_modules of the runtime from a stage that installed production dependencies only", () => {
    const moduleCopies = runtime.instructions.filter(
      (i) => i.kind === "COPY" && i.sources.some((s) => s.endsWith("node_modules")),
    );
    expect(moduleCopies.length).toBeGreaterThan(0);
    for (const copy of moduleCopies) {
      const from = stageNamed((copy as { from: string }).from)!;
      const installs = runs(from).filter((c) => /\bnpm (ci|install)\b/.test(c));
      expect(installs.length, `${copy.text}: stage ${from.name} installs nothing`).toBeGreaterThan(0);
      for (const install of installs) expect(install, `stage ${from.name}`).toMatch(/--omit=dev\b/);
    }
  });

  it("runs as a numeric non-root user, the one the chart's pods run as", () => {
    const user = last(runtime, "USER")?.user;
    expect(user, "the runtime stage sets no USER").toBeDefined();
    const match = /^(\d+)(?::(\d+))?$/.exec(user!);
    expect(
      match,
      `USER ${user} is not numeric (Kubernetes cannot check runAsNonRoot on a name)`,
    ).not.toBeNull();
    expect(Number(match![1])).toBeGreaterThan(0);
    if (match![2] !== undefined) expect(Number(match![2])).toBeGreaterThan(0);
    const values = parse(readFileSync(path.join(root, "charts/countersign/values.yaml"), "utf8"));
    expect(values.podSecurityContext.runAsUser).toBe(Number(match![1]));
    if (match![2] !== undefined) expect(values.podSecurityContext.runAsGroup).toBe(Number(match![2]));
  });

  it("starts every stage from the same Node LTS image, of the major version the repository supports and tests on", () => {
    const bases = new Set(dockerfile.stages.map((s) => baseImage(dockerfile, s)));
    expect(bases.size).toBe(1);
    const image = [...bases][0]!;
    const match = /^(?:(?:docker\.io\/)?library\/)?node:(\d+)(?:[.-][\w.-]*)?(?:@sha256:[0-9a-f]{64})?$/.exec(
      image,
    );
    expect(match, `${image} is not an official node image with a major version tag`).not.toBeNull();
    const major = Number(match![1]);
    // Even majors are Node's LTS lines.
    expect(major % 2, `node ${major} is not an LTS line`).toBe(0);
    const engines = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).engines.node as string;
    expect(major).toBe(Number(/(\d+)/.exec(engines)![1]));
    // The Node .ci/run and the README's set-up install (scripts/install-node.sh).
    const installed = /COUNTERSIGN_NODE_VERSION:-(\d+)\./.exec(
      readFileSync(path.join(root, "scripts/install-node.sh"), "utf8"),
    );
    expect(Number(installed![1])).toBe(major);
  });

  it("enters through node with source maps, in exec form, with a default program", () => {
    expect(last(runtime, "ENTRYPOINT")?.argv.slice(0, 2)).toEqual(["node", "--enable-source-maps"]);
    expect(last(runtime, "CMD")?.argv).toHaveLength(1);
  });

  it("has a build context without this machine's installs, outputs, data, caches or history", () => {
    const ignored = dockerignore(readFileSync(path.join(root, ".dockerignore"), "utf8"));
    for (const p of [
      "node_modules",
      "operator/node_modules",
      "core/dist",
      "api/dist/main.js",
      ".data",
      ".cache/helm",
      ".git",
      "core/dist/.tsbuildinfo",
    ]) {
      expect(ignored(p), p).toBe(true);
    }
    for (const p of ["package-lock.json", "core/src/index.ts", "core/migrations", "operator/package.json"])
      expect(ignored(p), p).toBe(false);
  });
});

describe("the Dockerfile reader the image tests use", () => {
  it("joins continuations, substitutes global ARGs and refuses what it does not understand", () => {
    const file = parseDockerfile(
      [
        "ARG BASE=node:24-slim",
        "FROM ${BASE} AS one",
        "# a comment",
        "RUN echo a \\",
        "  && echo b",
        "FROM one",
        'ENV A=1 B="two words"',
        "USER 1000:1000",
      ].join("\n"),
    );
    expect(file.stages.map((s) => [s.name, s.base])).toEqual([
      ["one", "node:24-slim"],
      ["1", "one"],
    ]);
    expect(runs(file.stages[0]!)).toEqual(["echo a && echo b"]);
    expect(file.stages[1]!.instructions[0]).toMatchObject({
      kind: "ENV",
      values: { A: "1", B: "two words" },
    });
    expect(() => parseDockerfile("FROM node:24\nHEALTHCHECK CMD true")).toThrow(
      /HEALTHCHECK is not understood/,
    );
    expect(() => parseDockerfile("FROM node:24\nCOPY --chmod=755 a b")).toThrow(
      /--chmod=755 is not understood/,
    );
    expect(() => parseDockerfile("FROM node:24\nCMD node main.js")).toThrow(/exec form/);
    expect(() => dockerignore("dist\n!dist/keep")).toThrow(/exceptions/);
  });
});
