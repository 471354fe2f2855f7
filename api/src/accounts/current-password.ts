import { ServiceError } from "@countersign/protocol/errors";
import type { Queryable } from "@countersign/core/store";
import { verifyPassword } from "./password-hash.js";
import { userById, type UserRow } from "./users-store.js";

/**
 * The signed-in person's account once the password they typed matches it;
 * 400 INVALID_CURRENT_PASSWORD otherwise. Routes that let a session try
 * passwords count the attempt against a per-person limit first.
 */
export async function withCurrentPassword(
  db: Queryable,
  userId: string,
  password: string,
  message = "the current password is wrong",
): Promise<UserRow> {
  const user = (await userById(db, userId))!;
  if (!(await verifyPassword(password, user.password_hash)))
    throw new ServiceError("INVALID_CURRENT_PASSWORD", message);
  return user;
}
