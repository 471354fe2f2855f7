/**
 * What the browser must offer before any key is made or used: WebCrypto Ed25519 in a secure
 * context (CRYPTO_UNAVAILABLE) and IndexedDB (STORAGE_UNAVAILABLE). Checked before anything is
 * sent, so a browser that cannot keep a key never starts binding one.
 */
import { DashboardError } from "../api/errors.js";

let cryptoChecked: Promise<void> | undefined;

export function requireCrypto(): Promise<void> {
  cryptoChecked ??= (async () => {
    if (!window.isSecureContext || !globalThis.crypto?.subtle) throw unavailable();
    try {
      await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]);
    } catch {
      throw unavailable();
    }
  })();
  return cryptoChecked.catch((err) => {
    cryptoChecked = undefined;
    throw err;
  });
}

const unavailable = () =>
  new DashboardError("CRYPTO_UNAVAILABLE", "WebCrypto Ed25519 is not available in this browser context");

export function requireStorage(): IDBFactory {
  let idb: IDBFactory | undefined;
  try {
    idb = globalThis.indexedDB;
  } catch {
    idb = undefined;
  }
  if (!idb)
    throw new DashboardError("STORAGE_UNAVAILABLE", "IndexedDB is not available in this browser context");
  return idb;
}

/** Both, in the order a person can fix them. */
export async function requireKeySupport(): Promise<IDBFactory> {
  await requireCrypto();
  return requireStorage();
}
