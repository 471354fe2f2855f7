/**
 * Private keys kept in this browser: non-extractable WebCrypto CryptoKeys in IndexedDB (a
 * CryptoKey is stored as itself; its key material cannot be read back out by any script).
 * Personal keys are filed under the person's user id, principal keys under the organization id.
 */
import { DashboardError } from "../api/errors.js";
import { requireStorage } from "./support.js";

export interface StoredKey {
  /** `${kind}:${owner}:${kid}` */
  id: string;
  kind: "personal" | "principal";
  /** user id (personal) or organization id (principal) */
  owner: string;
  kid: string;
  publicKey: Uint8Array;
  privateKey: CryptoKey;
  createdAt: string;
}

const DB = "countersign-keys";
const STORE = "keys";

function open(): Promise<IDBDatabase> {
  const idb = requireStorage();
  return new Promise((resolve, reject) => {
    let req: IDBOpenDBRequest;
    try {
      req = idb.open(DB, 1);
    } catch {
      return reject(new DashboardError("STORAGE_UNAVAILABLE", "IndexedDB refused to open"));
    }
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: "id" });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(new DashboardError("STORAGE_UNAVAILABLE", "IndexedDB refused to open"));
  });
}

async function run<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest): Promise<T> {
  const db = await open();
  try {
    return await new Promise<T>((resolve, reject) => {
      const req = work(db.transaction(STORE, mode).objectStore(STORE));
      req.onsuccess = () => resolve(req.result as T);
      req.onerror = () => reject(new DashboardError("STORAGE_UNAVAILABLE", "IndexedDB refused the key"));
    });
  } finally {
    db.close();
  }
}

export const keyId = (kind: StoredKey["kind"], owner: string, kid: string) => `${kind}:${owner}:${kid}`;

export const saveKey = (key: Omit<StoredKey, "id">) =>
  run<IDBValidKey>("readwrite", (s) => s.put({ ...key, id: keyId(key.kind, key.owner, key.kid) }));

export async function keysOf(kind: StoredKey["kind"], owner: string): Promise<StoredKey[]> {
  const all = await run<StoredKey[]>("readonly", (s) => s.getAll());
  return all
    .filter((k) => k.kind === kind && k.owner === owner)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

export const deleteKey = (kind: StoredKey["kind"], owner: string, kid: string) =>
  run<undefined>("readwrite", (s) => s.delete(keyId(kind, owner, kid)));
