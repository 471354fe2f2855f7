import type { FastifyInstance } from "fastify";
import type { ApiContext } from "../context.js";
import { agentRoutes } from "../agents/routes.js";
import { delegationRoutes } from "../delegations/routes.js";
import { dryRunRoute } from "../dry-run/routes.js";
import { apiKeyRoutes } from "./api-keys/api-keys.js";
import { auditRoute } from "./audit/audit.js";
import { emailChangeRoutes } from "./auth/email-change.js";
import { emailVerificationRoutes } from "./auth/email-verification.js";
import { passwordResetRoutes } from "./auth/password-reset.js";
import { passwordRoute } from "./auth/password.js";
import { sessionRoutes } from "./auth/session.js";
import { signinRoute } from "./auth/signin.js";
import { signupRoute } from "./auth/signup.js";
import { toolRoutes } from "../tools/routes.js";
import { billingRoutes } from "./billing/billing.js";
import { gatewayIdentityRoute } from "./gateway-identity.js";
import { acceptInvitationRoute } from "./invitations/accept.js";
import { invitationRoutes } from "./invitations/invitations.js";
import { mcpServerRoutes } from "../mcp-servers/routes.js";
import { memberRoutes } from "./members/members.js";
import { observeRoutes } from "../observe/routes.js";
import { operatorBindingRoutes } from "./operator-bindings/operator-bindings.js";
import { personalIdentityRoutes } from "./identities/identities.js";
import { principalRoutes } from "./principal/principal.js";
import { organizationRoutes } from "./orgs/organizations.js";
import { organizationSettingsRoute } from "./orgs/settings.js";
import { webhookRoutes } from "./webhooks/index.js";
import { deleteAccountRoute } from "./me/account.js";
import { policiesAndRollout } from "../policies/routes/index.js";
import { approvalRoutes } from "./approvals/approvals.js";
import { actionRoutes } from "./actions/actions.js";
import { receiptRoutes } from "./receipts/receipts.js";
import { overviewRoutes } from "./overview/overview.js";

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
  // approvals, actions, receipts, overview and usage
  approvalRoutes,
  actionRoutes,
  receiptRoutes,
  overviewRoutes,
];

export async function accessRoutes(app: FastifyInstance, ctx: ApiContext) {
  for (const plugin of plugins) await app.register(plugin, ctx);
}
