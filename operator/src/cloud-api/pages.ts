// The Cloud API's list pages (SPEC 4.3: `limit`, `cursor`, `next_cursor`), read to the end.
import type { z } from "zod";
import type { Page } from "@countersign/protocol/wire";
import type { CloudApiClient } from "./client.js";

/** Every item of a list, each page validated by `page` (a list schema of the wire). */
export async function allPages<T>(
  client: CloudApiClient,
  path: string,
  page: z.ZodType<Page<T>>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const answer: Page<T> = await client.get(
      `${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      page,
    );
    items.push(...answer.items);
    cursor = answer.next_cursor;
  } while (cursor);
  return items;
}
