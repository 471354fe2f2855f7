import { z } from "zod";

/**
 * One setting of a server: the environment variable that sets it and the zod
 * schema its value must satisfy. The same key (camelCase) is used in the
 * optional configuration file.
 */
export interface Setting<S extends z.ZodType = z.ZodType> {
  env: string;
  schema: S;
  /** Shown in the error message instead of zod's wording, e.g. "a port number 1-65535". */
  expects: string;
}

export type Settings = Record<string, Setting>;

export type ConfigOf<T extends Settings> = { [K in keyof T]: z.output<T[K]["schema"]> };

export function setting<S extends z.ZodType>(env: string, schema: S, expects: string): Setting<S> {
  return { env, schema, expects };
}

// Environment values are strings; file values may already be typed. These
// schemas accept both so a setting reads the same from either source.

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

export const seconds = (fallback: number, max: number) =>
  z.coerce.number().int().min(0).max(max).default(fallback);

export const flag = (fallback: boolean) =>
  z
    .union([z.boolean(), z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1")])
    .default(fallback);

export const postgresUrl = z
  .string()
  .refine((v) => /^postgres(ql)?:\/\//.test(v) && URL.canParse(v), "not a postgres:// URL");

export const httpUrl = z
  .string()
  .refine((v) => /^https?:\/\//.test(v) && URL.canParse(v), "not an http(s) URL");

export const logLevel = z
  .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
  .default("info");
