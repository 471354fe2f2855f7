import { z } from "zod";
import { dryRunAnswerSchema, dryRunRequestSchema, type DryRunReport } from "@countersign/protocol/wire";

/** The dry run's request and its report (SPEC 4.5): the wire's, protocol/src/wire/dry-run.ts. */
export const params = z.strictObject({ org_id: z.uuid(), agent_id: z.uuid() });
export const body = dryRunRequestSchema;
export const dryRunAnswer = dryRunAnswerSchema;
export type { DryRunReport };
