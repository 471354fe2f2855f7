import { z } from "zod";
import {
  delegationAnswerSchema,
  delegationListSchema,
  delegationSubmissionSchema,
  revocationSubmissionSchema,
} from "@countersign/protocol/wire";
import { pageQuery } from "../http/shared.js";

/** Requests and answers of the delegation routes; the delegation record is the protocol's. */
export const agentParams = z.strictObject({ org_id: z.uuid(), agent_id: z.uuid() });
export const delegationParams = z.strictObject({ org_id: z.uuid(), delegation_id: z.uuid() });
export const listQuery = z.strictObject({ ...pageQuery });
export const submissionBody = delegationSubmissionSchema;
export const revocationBody = revocationSubmissionSchema;

export const delegationPage = delegationListSchema;
export const delegationAnswer = delegationAnswerSchema;
