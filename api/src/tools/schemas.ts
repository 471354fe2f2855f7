import { z } from "zod";
import {
  toolAnswerSchema,
  toolAuthorizeSchema,
  toolCreateSchema,
  toolListSchema,
  toolPatchSchema,
} from "@countersign/protocol/wire";
import { pageQuery } from "../http/shared.js";

export { orgParams } from "../http/shared.js";

/** Requests and answers of the tool routes; the bodies and the tool record are the protocol's. */
export const toolParams = z.strictObject({ org_id: z.uuid(), tool_id: z.uuid() });
export const listQuery = z.strictObject({
  ...pageQuery,
  mcp_server_id: z.uuid().optional(),
  enabled: z.enum(["true", "false"]).optional(),
});
export const noQuery = z.strictObject({});
export const createBody = toolCreateSchema;
export const patchBody = toolPatchSchema;
export const authorizeBody = toolAuthorizeSchema;

export const toolPage = toolListSchema;
export const toolAnswer = toolAnswerSchema;
