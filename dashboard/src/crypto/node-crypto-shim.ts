/**
 * What the evidence code asks of node:crypto, for the browser build: SHA-256 (KIDs, object ids,
 * digests) from @noble/hashes. Signing in the browser is WebCrypto's (crypto/webcrypto.ts); the
 * node-only signer functions are never called here and say so if they are.
 */
import { sha256 } from "@noble/hashes/sha2.js";

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

export function createHash(algorithm: string) {
  if (algorithm !== "sha256") throw new Error(`only sha256 is available in the browser, not ${algorithm}`);
  const parts: Uint8Array[] = [];
  return {
    update(data: Uint8Array | string) {
      parts.push(typeof data === "string" ? new TextEncoder().encode(data) : data);
      return this;
    },
    digest(encoding: "hex") {
      if (encoding !== "hex") throw new Error("only hex digests are available in the browser");
      const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const p of parts) {
        all.set(p, at);
        at += p.length;
      }
      return hex(sha256(all));
    },
  };
}

const nodeOnly = (name: string) => () => {
  throw new Error(`${name} is not available in the browser`);
};
export const createPrivateKey = nodeOnly("createPrivateKey");
export const createPublicKey = nodeOnly("createPublicKey");
export const randomBytes = (n: number) => crypto.getRandomValues(new Uint8Array(n));
export const sign = nodeOnly("sign");
export const verify = nodeOnly("verify");
export type KeyObject = never;
