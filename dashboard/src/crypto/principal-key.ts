/**
 * The organization principal in the owner's browser. It is made extractable exactly once, to
 * write the PKCS#8 backup the owner must download before it is registered; what the browser
 * keeps is a non-extractable copy imported from those same bytes. Restoring imports a backup
 * the same way in another browser.
 */
import { DashboardError } from "../api/errors.js";
import { kidOf, fromBase64url } from "./evidence.js";
import { keysOf, saveKey, type StoredKey } from "./keystore.js";
import { pemToPkcs8, pkcs8ToPem } from "./pem.js";
import { requireKeySupport } from "./support.js";

const ED25519 = { name: "Ed25519" } as const;

export interface PrincipalDraft {
  kid: string;
  publicKey: Uint8Array;
  privateKey: CryptoKey;
  pem: string;
}

/** Imports PKCS#8 bytes as a non-extractable signing key, with its public key and KID (personal keys too). */
export async function importPkcs8(
  der: Uint8Array,
): Promise<{ privateKey: CryptoKey; publicKey: Uint8Array; kid: string }> {
  let readable: CryptoKey;
  try {
    readable = await crypto.subtle.importKey("pkcs8", der as BufferSource, ED25519, true, ["sign"]);
  } catch {
    throw new DashboardError("INVALID_INPUT", "this file is not an Ed25519 private key in PKCS#8 PEM");
  }
  const jwk = await crypto.subtle.exportKey("jwk", readable);
  const publicKey = fromBase64url(jwk.x ?? "");
  if (!publicKey) throw new DashboardError("INVALID_INPUT", "this key has no Ed25519 public half");
  const privateKey = await crypto.subtle.importKey("pkcs8", der as BufferSource, ED25519, false, ["sign"]);
  return { privateKey, publicKey, kid: kidOf(publicKey) };
}

/** A new principal key and its backup; nothing is stored or sent until the backup is taken. */
export async function draftPrincipal(): Promise<PrincipalDraft> {
  await requireKeySupport();
  const pair = (await crypto.subtle.generateKey(ED25519, true, ["sign", "verify"])) as CryptoKeyPair;
  const der = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const imported = await importPkcs8(der);
  return { ...imported, pem: pkcs8ToPem(der) };
}

export async function keepPrincipal(
  organizationId: string,
  key: { kid: string; publicKey: Uint8Array; privateKey: CryptoKey },
): Promise<void> {
  await saveKey({
    kind: "principal",
    owner: organizationId,
    kid: key.kid,
    publicKey: key.publicKey,
    privateKey: key.privateKey,
    createdAt: new Date().toISOString(),
  });
}

/** Restores a principal from its backup file; refused when it is not the organization's registered principal. */
export async function restorePrincipal(
  organizationId: string,
  pem: string,
  registeredKid: string | null,
): Promise<string> {
  await requireKeySupport();
  const der = pemToPkcs8(pem);
  if (!der) throw new DashboardError("INVALID_INPUT", "this file is not a PKCS#8 PEM key backup");
  const key = await importPkcs8(der);
  if (registeredKid && key.kid !== registeredKid)
    throw new DashboardError(
      "IDENTITY_MISMATCH",
      `this backup holds ${key.kid}, not the organization's principal ${registeredKid}`,
    );
  await keepPrincipal(organizationId, key);
  return key.kid;
}

export async function principalKey(organizationId: string, kid: string): Promise<StoredKey | undefined> {
  await requireKeySupport();
  return (await keysOf("principal", organizationId)).find((k) => k.kid === kid);
}
