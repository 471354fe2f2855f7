import { z } from "zod";

/** A list page of the Cloud API: newest first, `next_cursor` null on the last page. */
export const pageSchema = <T extends z.ZodType>(item: T) =>
  z.strictObject({ items: z.array(item), next_cursor: z.string().nullable() });

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** `limit` and `cursor` of a list's query string (strings on the wire, hence the coercion). */
export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().max(200).optional(),
};
