/**
 * The person's own keys for approvals: made here as non-extractable CryptoKeys, kept in
 * IndexedDB under their user id, bound to the account through a one-use challenge.
 */
import { identitiesApi } from "../api/me.js";
import { DashboardError } from "../api/errors.js";
import type { Identity } from "@countersign/protocol/wire";
import { toBase64url } from "./evidence.js";
import { pemToPkcs8 } from "./pem.js";
import { importPkcs8 } from "./principal-key.js";
import { deleteKey, keysOf, saveKey, type StoredKey } from "./keystore.js";
import { requireKeySupport } from "./support.js";
import { challengeMessage, ed25519Sign, generateKeyPair, genesisDocument } from "./webcrypto.js";

/** Makes a key, proves it to the Cloud API and keeps it. Nothing is sent when the browser cannot keep it. */
export async function bindNewPersonalKey(userId: string, name: string | null): Promise<Identity> {
  await requireKeySupport();
  const key = await generateKeyPair(false);
  // A personal identity is per person, not per organization (docs/evidence.md).
  const document = await genesisDocument(key.privateKey, key.publicKey, "person", {
    organization_id: "personal",
    id: userId,
    name,
  });
  // Kept before it is bound, so a bound key is never one this browser lost.
  await saveKey({
    kind: "personal",
    owner: userId,
    kid: key.kid,
    publicKey: key.publicKey,
    privateKey: key.privateKey,
    createdAt: new Date().toISOString(),
  });
  try {
    const { challenge } = await identitiesApi.challenge();
    const signature = toBase64url(await ed25519Sign(key.privateKey, challengeMessage(challenge.challenge)));
    const { identity } = await identitiesApi.bind({
      challenge_id: challenge.id,
      signature,
      document,
    });
    return identity;
  } catch (err) {
    await deleteKey("personal", userId, key.kid).catch(() => undefined);
    throw err;
  }
}

/**
 * Keeps in this browser a personal key already bound to the account, from its PKCS#8 PEM file (as
 * `make run` writes the demo owner's, .data/demo-owner-key.pem): imported non-extractable, kept
 * only when its KID is one of the person's active identities, so approvals it signs are accepted.
 */
export async function importPersonalKey(userId: string, pem: string): Promise<string> {
  await requireKeySupport();
  const der = pemToPkcs8(pem);
  if (!der) throw new DashboardError("INVALID_INPUT", "this file is not a PKCS#8 PEM private key");
  const key = await importPkcs8(der);
  const { items } = await identitiesApi.list();
  if (!items.some((i) => i.kid === key.kid && i.status === "active"))
    throw new DashboardError(
      "IDENTITY_UNKNOWN",
      `this key (${key.kid}) is not one of your bound keys; to approve from this browser, make and bind a new key instead`,
    );
  await saveKey({
    kind: "personal",
    owner: userId,
    kid: key.kid,
    publicKey: key.publicKey,
    privateKey: key.privateKey,
    createdAt: new Date().toISOString(),
  });
  return key.kid;
}

export async function personalKeys(userId: string): Promise<StoredKey[]> {
  await requireKeySupport();
  return keysOf("personal", userId);
}

export async function unbindPersonalKey(userId: string, kid: string): Promise<void> {
  await identitiesApi.unbind(kid);
  await deleteKey("personal", userId, kid).catch(() => undefined);
}
