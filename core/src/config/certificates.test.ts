import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createTestCa } from "../../../test/fixtures/https-receiver.js";
import { commonSettings } from "./common-settings.js";
import { ConfigError, loadConfig } from "@countersign/protocol/config";

const ca = createTestCa();
const other = createTestCa();
const dir = mkdtempSync(path.join(os.tmpdir(), "cs-ca-config-"));
afterAll(() => {
  ca.dispose();
  other.dispose();
  rmSync(dir, { recursive: true, force: true });
});
const file = (name: string, text: string) => {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
};
const required = {
  DATABASE_URL: "postgres://u@127.0.0.1:5432/db",
  COUNTERSIGN_KEY_HASH_SECRET: randomBytes(32).toString("base64url"),
};
const load = (value: string) =>
  loadConfig(commonSettings, { ...required, COUNTERSIGN_UPSTREAM_CA_FILE: value });

describe("COUNTERSIGN_UPSTREAM_CA_FILE", () => {
  it("is unset by default", () => {
    expect(loadConfig(commonSettings, required).upstreamCaFile).toBeUndefined();
  });

  it("reads every CA certificate of a bundle, whatever lies between them", () => {
    const bundle = file("bundle.pem", `# ours\n${ca.caPem}\nsubject=other\n${other.caPem}`);
    expect(load(bundle).upstreamCaFile).toEqual([ca.caPem.trim(), other.caPem.trim()]);
  });

  it("refuses, naming the setting and not the contents, a file that cannot serve as a trust bundle", () => {
    const cases = {
      missing: path.join(dir, "missing.pem"),
      folder: dir,
      empty: file("empty.pem", ""),
      "a server certificate": file("server.pem", ca.cert),
      "a CA and a server certificate": file("mixed.pem", `${ca.caPem}\n${ca.cert}`),
      "a broken block": file("broken.pem", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"),
      "a private key": file("key.pem", ca.key),
    };
    for (const [what, f] of Object.entries(cases)) {
      let problems: ConfigError["problems"] = [];
      try {
        load(f);
      } catch (err) {
        expect(err, what).toBeInstanceOf(ConfigError);
        problems = (err as ConfigError).problems;
      }
      expect(problems, what).toEqual([
        {
          setting: "COUNTERSIGN_UPSTREAM_CA_FILE",
          source: "environment",
          problem: "expected a readable file of PEM CA certificates",
        },
      ]);
      expect(JSON.stringify(problems)).not.toContain("PRIVATE KEY");
    }
  });
});
