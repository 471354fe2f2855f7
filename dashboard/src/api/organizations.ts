/** Organizations (SPEC 2.1): the person's list with their role, creation, settings, the current one. */
import { queryOptions } from "@tanstack/react-query";
import type { z } from "zod";
import {
  organizationAnswerSchema,
  organizationCreateSchema,
  organizationListSchema,
  organizationSettingsSchema,
  organizationSwitchSchema,
} from "@countersign/protocol/wire";
import { cloud } from "./cloud.js";
import { inOrg } from "./paths.js";

export const organizationKeys = { all: ["orgs"] as const };

export const organizationsApi = {
  list: () => cloud.request("GET", "/orgs", organizationListSchema),
  listQuery: () => queryOptions({ queryKey: organizationKeys.all, queryFn: organizationsApi.list }),
  get: (orgId: string) => cloud.request("GET", inOrg(orgId), organizationAnswerSchema),
  create: (body: z.input<typeof organizationCreateSchema>) =>
    cloud.request("POST", "/orgs", organizationAnswerSchema, { body }),
  update: (orgId: string, body: z.input<typeof organizationSettingsSchema>) =>
    cloud.request("PATCH", inOrg(orgId), organizationAnswerSchema, { body }),
  /** Remembers the organization as the session's current one. */
  switchTo: (orgId: string) =>
    cloud.request("POST", inOrg(orgId, "/switch"), organizationSwitchSchema, { body: {} }),
};
