/** The signed-in person's own keys (SPEC 2.7: personal identities bound to the account) and preferences. */
import type { z } from "zod";
import {
  accountPreferencesSchema,
  identityAnswerSchema,
  identityBindSchema,
  identityChallengeAnswerSchema,
  identityListSchema,
  userAnswerSchema,
} from "@countersign/protocol/wire";
import { cloud } from "./cloud.js";
import { seg } from "./paths.js";

export const identitiesApi = {
  list: () => cloud.request("GET", "/me/identities", identityListSchema),
  challenge: () =>
    cloud.request("POST", "/me/identity-challenges", identityChallengeAnswerSchema, { body: {} }),
  bind: (body: z.input<typeof identityBindSchema>) =>
    cloud.request("POST", "/me/identities", identityAnswerSchema, { body }),
  unbind: (kid: string) => cloud.request("DELETE", `/me/identities/${seg(kid)}`, identityAnswerSchema),
};

/** PATCH /me: the person's preferences (whether approval requests waiting for them are e-mailed). */
export const preferencesApi = {
  update: (body: z.input<typeof accountPreferencesSchema>) =>
    cloud.request("PATCH", "/me", userAnswerSchema, { body }),
};
