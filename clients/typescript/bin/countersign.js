#!/usr/bin/env node
// The `countersign` command. This file is committed rather than compiled so that it exists when
// npm installs the workspace and links its bin (npm skips a bin whose file is missing, and the
// compiled CLI appears only after the build); the CLI itself is dist/cli/main.js.
import process from "node:process";

try {
  await import("../dist/cli/main.js");
} catch (err) {
  if (err?.code === "ERR_MODULE_NOT_FOUND" && String(err.message).includes("dist/cli/main.js")) {
    process.stderr.write("countersign: the CLI is not built yet; run `make build` (or `npx tsc -b`) first\n");
    process.exit(2);
  }
  throw err;
}
