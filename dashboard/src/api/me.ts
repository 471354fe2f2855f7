/** The signed-in person's own keys (SPEC 2.7: personal identities bound to the account). */
import type { z } from "zod";
import {
  identityAnswerSchema,
  identityBindSchema,
  identityChallengeAnswerSchema,
  identityListSchema,
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
