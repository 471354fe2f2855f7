/**
 * Local Ed25519 key files: a personal key (`identity create`) or an
 * organization principal's key (`actions cancel --principal-key-file`).
 * JSON `{kind, kid, seed}` with `seed` the 32-byte private seed in base64url;
 * written with mode 0600 and never over an existing file, read only when no
 * one else may read it.
 */
import { readFileSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import {
  fromBase64url,
  generateSeed,
  nodeSigner,
  toBase64url,
  type Signer,
} from "@countersign/core/evidence";
import { CliError } from "./errors.js";
import { EXIT } from "./exit-codes.js";

export const KEY_FILE_KIND = "countersign-ed25519-key";

export function createKeyFile(path: string): Signer {
  const seed = generateSeed();
  const signer = nodeSigner(seed);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(
      path,
      `${JSON.stringify({ kind: KEY_FILE_KIND, kid: signer.kid, seed: toBase64url(seed) }, null, 2)}\n`,
      { mode: 0o600, flag: "wx" },
    );
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new CliError(
      code === "EEXIST"
        ? `${path} exists; a key file is never overwritten`
        : `cannot write ${path} (${code ?? "error"})`,
      EXIT.usage,
    );
  }
  return signer;
}

export function readKeyFile(path: string): Signer {
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
  return nodeSigner(seed);
}
