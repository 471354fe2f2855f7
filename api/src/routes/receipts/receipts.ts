import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { bundleContentType, bundleFileName } from "@countersign/protocol/evidence";
import type { ApiContext } from "../../context.js";
import { decisionCheck } from "../../receipts/decision-check.js";
import { receiptDetailJson } from "../../receipts/receipt-detail.js";
import {
  readReceipt,
  RECEIPT_COLUMNS,
  RECEIPT_FROM,
  receiptListItemJson,
  vouchedBundle,
  type ReceiptRow,
} from "../../receipts/stored-receipt.js";
import { verifyStoredBundle } from "../../receipts/verify.js";
import { decodeCursor, timeCursor, keysetPage, organizationOf, pageQuery, typed } from "../../http/shared.js";

const receiptParams = z.strictObject({ org_id: z.uuid(), receipt_id: z.uuid() });

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
        params: z.strictObject({ org_id: z.uuid() }),
        querystring: z.strictObject({
          ...pageQuery,
          // Any text is a valid filter: `rejected` is no outcome, so it matches nothing (SPEC 2.8).
          outcome: z.string().min(1).max(40).optional(),
          kind: z.enum(["execution", "authorization", "closure"]).optional(),
          agent_id: z.uuid().optional(),
          protected_action_id: z.uuid().optional(),
        }),
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const q = request.query;
      const after = decodeCursor(q.cursor, timeCursor);
      const { rows } = await ctx.pool.query<ReceiptRow>(
        `select ${RECEIPT_COLUMNS} from ${RECEIPT_FROM}
          where r.organization_id = $1 and ($2::text is null or r.outcome = $2) and ($3::text is null or r.kind = $3)
            and ($4::uuid is null or pa.agent_id = $4) and ($5::uuid is null or r.protected_action_id = $5)
            and ($6::timestamptz is null or (r.created_at, r.id) < ($6::timestamptz, $7::uuid))
          order by r.created_at desc, r.id desc limit $8`,
        [
          o.id,
          q.outcome ?? null,
          q.kind ?? null,
          q.agent_id ?? null,
          q.protected_action_id ?? null,
          after?.[0] ?? null,
          after?.[1] ?? null,
          q.limit + 1,
        ],
      );
      return keysetPage(rows, q.limit, receiptListItemJson, (last) => [
        last.r_created_at.toISOString(),
        last.r_id,
      ]);
    },
  );

  r.get("/orgs/:org_id/receipts/:receipt_id", { schema: { params: receiptParams } }, async (request) => {
    const o = organizationOf(request);
    const row = await readReceipt(ctx.pool, o.id, request.params.receipt_id);
    const { bytes, verificationAtIssuance } = await vouchedBundle(ctx.pool, row);
    const verification = await verifyStoredBundle(ctx.pool, o.id, JSON.parse(bytes.toString("utf8")), now());
    // The stored report and its boolean as read together with the bytes (the worker may have run since the first read).
    const atIssuance = verificationAtIssuance as { valid: boolean } | null;
    const current = {
      ...row,
      verified_at_issuance: atIssuance ? atIssuance.valid : row.verified_at_issuance,
    };
    return { receipt: receiptDetailJson(current, bytes, verification, atIssuance) };
  });

  r.get(
    "/orgs/:org_id/receipts/:receipt_id/decision-check",
    { schema: { params: receiptParams } },
    async (request) => {
      const o = organizationOf(request);
      const row = await readReceipt(ctx.pool, o.id, request.params.receipt_id);
      const { bytes } = await vouchedBundle(ctx.pool, row);
      return { decision_check: await decisionCheck(ctx.pool, o.id, row, bytes, now()) };
    },
  );

  r.get(
    "/orgs/:org_id/receipts/:receipt_id/bundle",
    { schema: { params: receiptParams } },
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
