import type { FastifyInstance } from "fastify";
import { bundleContentType, bundleFileName } from "@countersign/protocol/evidence";
import type { ApiContext } from "../context.js";
import { decodeCursor, timeCursor, keysetPage, organizationOf, typed, orgParams } from "../http/shared.js";
import { decisionCheck } from "./decision-check.js";
import { receiptDetailJson } from "./receipt-detail.js";
import { receiptJson, receiptListQuery, receiptParams, receiptResponses } from "./schemas.js";
import { listReceipts, readReceipt } from "./store.js";
import { vouchedBundle } from "./vouched-bundle.js";
import { verifyStoredBundle } from "./verify.js";

/**
 * Receipts (SPEC 2.8; docs/evidence-api.md "Receipts"): list, detail,
 * decision check and bundle download. Detail, check and download re-read
 * the stored bundle on every request and vouch for it only when it still
 * hashes to `bundle_sha256`; after retention they answer 410.
 */
export async function receiptRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  const now = () => ctx.evidence?.now?.() ?? new Date();

  r.get(
    "/orgs/:org_id/receipts",
    {
      schema: {
        params: orgParams,
        querystring: receiptListQuery,
        response: receiptResponses.list,
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const { cursor, limit, ...filter } = request.query;
      const after = decodeCursor(cursor, timeCursor);
      const rows = await listReceipts(ctx.pool, o.id, { ...filter, after, limit: limit + 1 });
      return keysetPage(rows, limit, receiptJson, (last) => [last.r_created_at.toISOString(), last.r_id]);
    },
  );

  r.get(
    "/orgs/:org_id/receipts/:receipt_id",
    { schema: { params: receiptParams, response: receiptResponses.one } },
    async (request) => {
      const o = organizationOf(request);
      const row = await readReceipt(ctx.pool, o.id, request.params.receipt_id);
      const { bytes, verificationAtIssuance } = await vouchedBundle(ctx.pool, row);
      const verification = await verifyStoredBundle(
        ctx.pool,
        o.id,
        JSON.parse(bytes.toString("utf8")),
        now(),
      );
      // The stored report and its boolean as read together with the bytes (the worker may have run since the first read).
      const atIssuance = verificationAtIssuance as { valid: boolean } | null;
      const current = {
        ...row,
        verified_at_issuance: atIssuance ? atIssuance.valid : row.verified_at_issuance,
      };
      return { receipt: receiptDetailJson(current, bytes, verification, atIssuance) };
    },
  );

  r.get(
    "/orgs/:org_id/receipts/:receipt_id/decision-check",
    { schema: { params: receiptParams, response: receiptResponses.decisionCheck } },
    async (request) => {
      const o = organizationOf(request);
      const row = await readReceipt(ctx.pool, o.id, request.params.receipt_id);
      const { bytes } = await vouchedBundle(ctx.pool, row);
      return { decision_check: await decisionCheck(ctx.pool, o.id, row, bytes, now()) };
    },
  );

  r.get(
    "/orgs/:org_id/receipts/:receipt_id/bundle",
    { schema: { params: receiptParams, response: receiptResponses.bundle } },
    async (request, reply) => {
      const o = organizationOf(request);
      const row = await readReceipt(ctx.pool, o.id, request.params.receipt_id);
      const { bytes } = await vouchedBundle(ctx.pool, row);
      return reply
        .type(bundleContentType)
        .header("content-disposition", `attachment; filename="${bundleFileName(row.receipt_object_id)}"`)
        .header("x-service-bundle-sha256", row.bundle_sha256)
        .send(bytes);
    },
  );
}
