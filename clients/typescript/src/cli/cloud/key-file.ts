/**
 * Local Ed25519 key files: a personal key (`identity create`) or an organization principal's key
 * (`principal create`, `delegations grant --principal-key-file`, `actions cancel --principal-key-file`).
 *
 * One format everywhere a principal key is kept: PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), byte
 * for byte what node:crypto writes. It is the dashboard's "Download the key backup" file and what the
 * operator's Organization Secret holds, so a key moves between the dashboard, the CLI and the
 * operator without conversion. Files written by earlier CLI versions (JSON `{kind, kid, seed}`) are
 * still read. Written with mode 0600 and never over an existing file; read only when no one else may
 * read it.
 */
import { createPrivateKey } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import {
  fromBase64url,
  generateSeed,
  nodeSigner,
  privateKeyFromSeed,
  type Signer,
} from "@countersign/protocol/evidence";
import { CliError } from "./errors.js";
import { EXIT } from "./exit-codes.js";

/** The `kind` of the JSON key files earlier CLI versions wrote (read, never written). */
const LEGACY_KEY_FILE_KIND = "countersign-ed25519-key";

/** The key as PKCS#8 PEM, the one key file format. */
export const keyPem = (seed: Uint8Array): string =>
  privateKeyFromSeed(seed).export({ type: "pkcs8", format: "pem" }).toString();

export function createKeyFile(path: string): Signer {
  const seed = generateSeed();
  writePrivateFile(path, keyPem(seed));
  return nodeSigner(seed);
}

/** A copy of the key in the same PEM format, written like a key file: mode 0600, never over an existing file. */
export function writePemFile(path: string, seed: Uint8Array): void {
  writePrivateFile(path, keyPem(seed));
}

/** Refuses, before anything is sent, a path a key would later fail to be written to. */
export function assertWritable(path: string): void {
  if (existsSync(path)) throw new CliError(`${path} exists; a key file is never overwritten`, EXIT.usage);
}

function writePrivateFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(path, text, { mode: 0o600, flag: "wx" });
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new CliError(
      code === "EEXIST"
        ? `${path} exists; a key file is never overwritten`
        : `cannot write ${path} (${code ?? "error"})`,
      EXIT.usage,
    );
  }
}

export function readKeyFile(path: string): Signer {
  return nodeSigner(readKeySeed(path));
}

/** The key file's private seed (for exporting it; signing goes through readKeyFile). */
export function readKeySeed(path: string): Uint8Array {
  let text: string;
  try {
    // Like ssh, refuse a private key others can read: it may already have leaked.
    if ((statSync(path).mode & 0o077) !== 0)
      throw new CliError(`${path} is readable by others; run chmod 600 ${path} and try again`, EXIT.usage);
    text = readFileSync(path, "utf8");
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`cannot read the key file ${path}`, EXIT.usage);
  }
  const seed = text.includes("-----BEGIN") ? pemSeed(text) : legacySeed(text);
  if (!seed)
    throw new CliError(
      `${path} is not an Ed25519 private key in PKCS#8 PEM (the dashboard's key backup, or a file \`countersign principal create\` or \`identity create\` wrote)`,
      EXIT.usage,
    );
  return seed;
}

/** The 32-byte seed of a PKCS#8 PEM Ed25519 private key, or null for anything else. */
function pemSeed(text: string): Uint8Array | null {
  try {
    const key = createPrivateKey({ key: text, format: "pem" });
    if (key.asymmetricKeyType !== "ed25519") return null;
    const seed = fromBase64url(key.export({ format: "jwk" }).d ?? "");
    return seed && seed.length === 32 ? seed : null;
  } catch {
    return null;
  }
}

function legacySeed(text: string): Uint8Array | null {
  let parsed: { kind?: unknown; seed?: unknown };
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  const seed = typeof parsed.seed === "string" ? fromBase64url(parsed.seed) : null;
  return parsed.kind === LEGACY_KEY_FILE_KIND && seed && seed.length === 32 ? seed : null;
}
