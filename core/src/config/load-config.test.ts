import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, port, setting } from "@countersign/protocol/config";
import { commonSettings } from "./common-settings.js";

const settings = {
  ...commonSettings,
  port: setting("TEST_PORT", port(8081), "a port number 0-65535"),
};

const secret = randomBytes(32).toString("base64url");

function problemsOf(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  it("reads defaults when only the required setting is present", () => {
    const c = loadConfig(settings, {
      DATABASE_URL: "postgres://u@127.0.0.1:5432/db",
      COUNTERSIGN_KEY_HASH_SECRET: secret,
    });
    expect(c).toMatchObject({
      port: 8081,
      host: "0.0.0.0",
      logLevel: "info",
      shutdownGraceSeconds: 25,
      metricsEnabled: true,
    });
    expect(c.otlpEndpoint).toBeUndefined();
  });

  it("coerces environment strings to typed values", () => {
    const c = loadConfig(settings, {
      DATABASE_URL: "postgresql://u@h/db",
      COUNTERSIGN_KEY_HASH_SECRET: secret,
      TEST_PORT: "9000",
      COUNTERSIGN_METRICS: "false",
      COUNTERSIGN_SHUTDOWN_GRACE_SECONDS: "3",
    });
    expect(c).toMatchObject({ port: 9000, metricsEnabled: false, shutdownGraceSeconds: 3 });
  });

  it("names every bad setting at once and never repeats the value", () => {
    const problems = problemsOf(() =>
      loadConfig(settings, {
        TEST_PORT: "http",
        COUNTERSIGN_LOG_LEVEL: "loud",
        COUNTERSIGN_METRICS: "maybe",
        OTEL_EXPORTER_OTLP_ENDPOINT: "s3cret-not-a-url",
        COUNTERSIGN_KEY_HASH_SECRET: "c2hvcnQ",
      }),
    );
    expect(problems.map((p) => p.setting).sort()).toEqual(
      [
        "COUNTERSIGN_KEY_HASH_SECRET",
        "COUNTERSIGN_LOG_LEVEL",
        "COUNTERSIGN_METRICS",
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "TEST_PORT",
        "databaseUrl",
      ].sort(),
    );
    expect(problems.find((p) => p.setting === "databaseUrl")?.problem).toMatch(/^required/);
    expect(JSON.stringify(problems)).not.toContain("s3cret");
  });

  it("takes the key hash secret as base64 (openssl rand -base64 32) or base64url, and refuses others clearly", () => {
    const bytes = randomBytes(32);
    // The standard alphabet with padding, as openssl prints it; '+' and '/' are sure to occur.
    const standard = Buffer.concat([Buffer.from([0xfb, 0xff]), bytes]).toString("base64");
    expect(standard).toMatch(/[+/]/);
    for (const text of [standard, bytes.toString("base64url"), randomBytes(48).toString("base64")]) {
      const c = loadConfig(settings, {
        DATABASE_URL: "postgres://u@127.0.0.1:5432/db",
        COUNTERSIGN_KEY_HASH_SECRET: text,
      });
      expect(c.keyHashSecret).toEqual(Buffer.from(text, "base64"));
    }
    for (const bad of ["c2hvcnQ", `${bytes.toString("base64")}!`, `${standard}==`, "a".repeat(45)]) {
      const problems = problemsOf(() =>
        loadConfig(settings, {
          DATABASE_URL: "postgres://u@127.0.0.1:5432/db",
          COUNTERSIGN_KEY_HASH_SECRET: bad,
        }),
      );
      expect(problems).toEqual([
        {
          setting: "COUNTERSIGN_KEY_HASH_SECRET",
          source: "environment",
          problem: "expected at least 32 bytes as base64 or base64url (openssl rand -base64 32)",
        },
      ]);
    }
  });

  it("rejects ports out of range and negative grace periods", () => {
    const problems = problemsOf(() =>
      loadConfig(settings, {
        DATABASE_URL: "postgres://h/db",
        COUNTERSIGN_KEY_HASH_SECRET: secret,
        TEST_PORT: "70000",
        COUNTERSIGN_SHUTDOWN_GRACE_SECONDS: "-1",
      }),
    );
    expect(problems.map((p) => p.setting).sort()).toEqual([
      "COUNTERSIGN_SHUTDOWN_GRACE_SECONDS",
      "TEST_PORT",
    ]);
  });

  describe("with a configuration file", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "cs-config-"));
    const write = (name: string, text: string) => {
      const f = path.join(dir, name);
      writeFileSync(f, text);
      return f;
    };

    it("reads typed values from YAML, and the environment wins", () => {
      const f = write(
        "ok.yaml",
        `databaseUrl: postgres://file/db\nport: 7000\nlogLevel: debug\nkeyHashSecret: ${secret}\n`,
      );
      const c = loadConfig(settings, { COUNTERSIGN_CONFIG_FILE: f, COUNTERSIGN_LOG_LEVEL: "warn" });
      expect(c).toMatchObject({ databaseUrl: "postgres://file/db", port: 7000, logLevel: "warn" });
    });

    it("refuses unknown keys and bad values in the file", () => {
      const f = write(
        "bad.yaml",
        `databaseUrl: postgres://file/db\nport: many\ncolour: blue\nkeyHashSecret: ${secret}\n`,
      );
      const problems = problemsOf(() => loadConfig(settings, { COUNTERSIGN_CONFIG_FILE: f }));
      expect(problems).toEqual([
        { setting: "colour", source: "file", problem: "unknown setting" },
        { setting: "port", source: "file", problem: "expected a port number 0-65535" },
      ]);
    });

    it("reports an unreadable or malformed file", () => {
      expect(
        problemsOf(() =>
          loadConfig(settings, { COUNTERSIGN_CONFIG_FILE: path.join(dir, "missing.yaml") }),
        )[0],
      ).toMatchObject({
        setting: "COUNTERSIGN_CONFIG_FILE",
        problem: expect.stringContaining("ENOENT"),
      });
      const f = write("list.yaml", "- a\n- b\n");
      expect(problemsOf(() => loadConfig(settings, { COUNTERSIGN_CONFIG_FILE: f }))[0]?.problem).toContain(
        "mapping",
      );
    });
  });
});
