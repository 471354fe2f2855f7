// The Cloud API's list pages (SPEC 4.3: `limit`, `cursor`, `next_cursor`), read to the end.
import type { Page } from "@countersign/protocol/wire";
import type { CloudApiClient } from "./client.js";

export async function allPages<T>(client: CloudApiClient, path: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const page: Page<T> = await client.get(
      `${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}
