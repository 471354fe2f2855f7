/**
 * The organization principal's key backup: PKCS#8 PEM, byte for byte the format node:crypto
 * writes (`export({ type: "pkcs8", format: "pem" })`), which the operator's Organization Secret
 * and the CLI's --principal-key-file read.
 */
const BEGIN = "-----BEGIN PRIVATE KEY-----";
const END = "-----END PRIVATE KEY-----";

export function pkcs8ToPem(der: Uint8Array): string {
  let bin = "";
  for (const b of der) bin += String.fromCharCode(b);
  const lines = btoa(bin).match(/.{1,64}/g) ?? [];
  return `${BEGIN}\n${lines.join("\n")}\n${END}\n`;
}

export function pemToPkcs8(pem: string): Uint8Array | null {
  const m = new RegExp(`${BEGIN}([A-Za-z0-9+/=\\s]+)${END}`).exec(pem);
  if (!m) return null;
  try {
    const bin = atob(m[1]!.replace(/\s+/g, ""));
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}
