import { z } from "zod";

/**
 * A time a caller writes (ISO 8601 with an offset), also one PostgreSQL can
 * read: zod checks the calendar, PostgreSQL further refuses the year 0000
 * and offsets beyond 15:59.
 */
export const instantSchema = z.iso.datetime({ offset: true }).refine((v) => {
  const offset = /([+-])(\d{2}):?(\d{2})$/.exec(v);
  return v.slice(0, 4) !== "0000" && (!offset || Number(offset[2]) <= 15);
}, "not a time the service can store");
