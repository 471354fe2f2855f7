import type { FastifyInstance } from "fastify";
import type { ApiContext } from "../context.js";
import { apiKeyRoutes } from "../api-keys/routes.js";
import { auditRoute } from "../audit/routes.js";
import {
  emailChangeRoutes,
  emailVerificationRoutes,
  passwordResetRoutes,
  passwordRoute,
  sessionRoutes,
  signinRoute,
  signupRoute,
} from "../auth/routes/index.js";
import { billingRoutes } from "../billing/routes.js";
import { gatewayIdentityRoute } from "../gateway-identity/routes.js";
import { acceptInvitationRoute, invitationRoutes } from "../invitations/routes.js";
import { memberRoutes } from "../members/routes.js";
import { operatorBindingRoutes } from "../operator-bindings/routes.js";
import { personalIdentityRoutes } from "../identities/routes.js";
import { principalRoutes } from "../principal/routes.js";
import { organizationRoutes } from "../orgs/routes/organizations.js";
import { organizationSettingsRoute } from "../orgs/routes/settings.js";
import { webhookRoutes } from "../webhooks/routes/index.js";
import { accountPreferencesRoute, deleteAccountRoute } from "../me/routes.js";
import { approvalRoutes } from "../approvals/routes.js";
import { actionRoutes } from "../actions/routes.js";
import { receiptRoutes } from "../receipts/routes.js";
import { overviewRoutes } from "../overview/routes.js";
import { agentRoutes } from "../agents/routes.js";
import { delegationRoutes } from "../delegations/routes.js";
import { dryRunRoute } from "../dry-run/routes.js";
import { toolRoutes } from "../tools/routes.js";
import { mcpServerRoutes } from "../mcp-servers/routes.js";
import { observeRoutes } from "../observe/routes.js";
import { policiesAndRollout } from "../policies/routes/index.js";

/** The people-and-access routes; who may call each is in access/route-table.ts. */
const plugins = [
  signupRoute,
  signinRoute,
  sessionRoutes,
  passwordRoute,
  emailVerificationRoutes,
  emailChangeRoutes,
  passwordResetRoutes,
  organizationRoutes,
  organizationSettingsRoute,
  memberRoutes,
  invitationRoutes,
  acceptInvitationRoute,
  apiKeyRoutes,
  auditRoute,
  billingRoutes,
  gatewayIdentityRoute,
  operatorBindingRoutes,
  // configuration
  principalRoutes,
  personalIdentityRoutes,
  agentRoutes,
  delegationRoutes,
  observeRoutes,
  mcpServerRoutes,
  toolRoutes,
  dryRunRoute,
  // policies and rollout
  policiesAndRollout,
  // webhooks, and account deletion, which disables the endpoints one created
  webhookRoutes,
  deleteAccountRoute,
  accountPreferencesRoute,
  // approvals, actions, receipts, overview and usage
  approvalRoutes,
  actionRoutes,
  receiptRoutes,
  overviewRoutes,
];

export async function accessRoutes(app: FastifyInstance, ctx: ApiContext) {
  for (const plugin of plugins) await app.register(plugin, ctx);
}
