/** The organization principal (SPEC 2.7): its registered key and its registration or replacement. */
import { queryOptions } from "@tanstack/react-query";
import type { z } from "zod";
import {
  principalStateSchema,
  principalSubmitSchema,
  principalSubmittedSchema,
} from "@countersign/protocol/wire";
import { cloud } from "./cloud.js";
import { inOrg } from "./paths.js";

export const principalKeys = { state: (orgId: string) => ["principal", orgId] as const };

export const principalApi = {
  query: (orgId: string) =>
    queryOptions({
      queryKey: principalKeys.state(orgId),
      queryFn: () => cloud.request("GET", inOrg(orgId, "/principal"), principalStateSchema),
    }),
  register: (orgId: string, body: z.input<typeof principalSubmitSchema>) =>
    cloud.request("POST", inOrg(orgId, "/principal"), principalSubmittedSchema, { body }),
};
