/**
 * Local Ed25519 key files: a personal key (`identity create`) or an
 * organization principal's key (`principal create`, `actions cancel
 * --principal-key-file`).
 * JSON `{kind, kid, seed}` with `seed` the 32-byte private seed in base64url;
 * written with mode 0600 and never over an existing file, read only when no
 * one else may read it.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import {
  fromBase64url,
  generateSeed,
  nodeSigner,
  privateKeyFromSeed,
  toBase64url,
  type Signer,
} from "@countersign/protocol/evidence";
import { CliError } from "./errors.js";
import { EXIT } from "./exit-codes.js";

export const KEY_FILE_KIND = "countersign-ed25519-key";

export function createKeyFile(path: string): Signer {
  const seed = generateSeed();
  const signer = nodeSigner(seed);
  writePrivateFile(
    path,
    `${JSON.stringify({ kind: KEY_FILE_KIND, kid: signer.kid, seed: toBase64url(seed) }, null, 2)}\n`,
  );
  return signer;
}

/**
 * The key as PKCS#8 PEM (the format of the operator's principal key Secret), written like a key
 * file: mode 0600, never over an existing file.
 */
export function writePemFile(path: string, seed: Uint8Array): void {
  writePrivateFile(path, privateKeyFromSeed(seed).export({ type: "pkcs8", format: "pem" }).toString());
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
      throw new CliError(`${path} is readable by others; chmod 600 it`, EXIT.usage);
    text = readFileSync(path, "utf8");
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`cannot read the key file ${path}`, EXIT.usage);
  }
  let parsed: { kind?: unknown; seed?: unknown };
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError(`${path} is not a countersign key file`, EXIT.usage);
  }
  const seed = typeof parsed.seed === "string" ? fromBase64url(parsed.seed) : null;
  if (parsed.kind !== KEY_FILE_KIND || !seed || seed.length !== 32)
    throw new CliError(`${path} is not a countersign key file`, EXIT.usage);
  return seed;
}
