import { z } from "zod";

/**
 * Installation secrets given as base64 or base64url text (padding optional) of
 * at least 32 bytes, so `openssl rand -base64 32` (the form the credential key
 * is documented with) and `openssl rand -base64url 32`-style values both pass.
 * Text whose length no base64 encoding has (one character past a multiple of
 * four) is refused rather than decoded to fewer bytes than written. They are
 * parsed to bytes here so no server handles the text form afterwards.
 */
export const secretBytes = z
  .string()
  .regex(/^[A-Za-z0-9+/_-]+={0,2}$/, "not base64 or base64url")
  .refine((v) => v.replace(/=+$/, "").length % 4 !== 1, "not base64 or base64url (a character too many)")
  .transform((v) => Buffer.from(v, "base64"))
  .refine((b) => b.length >= 32, "shorter than 32 bytes");

/** Exactly 32 bytes: an Ed25519 private key seed. */
export const ed25519Seed = z
  .string()
  .regex(/^[A-Za-z0-9_-]{43}=?$/, "not 32 bytes of base64url")
  .transform((v) => Buffer.from(v, "base64url"));

/** Exactly 32 bytes as base64 or base64url (`openssl rand -base64 32`): an AES-256 key. */
export const key32 = z
  .string()
  .regex(/^[A-Za-z0-9+/_-]{43}=?$/, "not 32 bytes of base64")
  .transform((v) => Buffer.from(v, "base64"));
