export { verifyWebhook, WEBHOOK_TOLERANCE_SECONDS, type WebhookVerification } from "./webhooks/verify.js";
export * from "./authorize/index.js";
export * from "./mcp/index.js";
