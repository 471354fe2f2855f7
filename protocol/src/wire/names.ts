import { z } from "zod";

/** Names of accounts, organizations, agents, keys: 1-200 characters, one line, no control characters. */
export const nameSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\p{Cc}\p{Zl}\p{Zp}]*$/u, "one line without control characters");
