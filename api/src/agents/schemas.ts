import { z } from "zod";
import {
  agentAnswerSchema,
  agentCreateSchema,
  agentListSchema,
  agentPatchSchema,
  agentStatuses,
} from "@countersign/protocol/wire";
import { pageQuery } from "../http/shared.js";

export { orgParams } from "../http/shared.js";

/** Requests and answers of the agent routes; the agent record itself is the protocol's (its clients read it). */
export const agentParams = z.strictObject({ org_id: z.uuid(), agent_id: z.uuid() });
export const listQuery = z.strictObject({ ...pageQuery, status: z.enum(agentStatuses).optional() });
export const noQuery = z.strictObject({});
export const createBody = agentCreateSchema;
export const patchBody = agentPatchSchema;

export const agentPage = agentListSchema;
export const agentAnswer = agentAnswerSchema;
