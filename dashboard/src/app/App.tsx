import type { ReactNode } from "react";
import { Link, Navigate, Route, Routes, useLocation } from "react-router";
import { Anchor, Text } from "@mantine/core";
import { useSession } from "../session/session.js";
import { CardPage } from "../components/CardPage.js";
import { LoadingLine } from "../components/Loading.js";
import { Shell } from "./Shell.js";
import { useOrganizations } from "../session/organization.js";
import { SignInPage } from "../routes/sign-in/SignInPage.js";
import { SignUpPage } from "../routes/sign-up/SignUpPage.js";
import { VerifyEmailPage } from "../routes/verify-email/VerifyEmailPage.js";
import { ResendPage } from "../routes/verify-email/ResendPage.js";
import { PasswordResetPage } from "../routes/password-reset/PasswordResetPage.js";
import { EmailChangeApprovePage } from "../routes/email-change/EmailChangeApprovePage.js";
import { EmailChangeRejectPage } from "../routes/email-change/EmailChangeRejectPage.js";
import { AcceptInvitationPage } from "../routes/invitations/AcceptInvitationPage.js";
import { AccountPage } from "../routes/account/AccountPage.js";
import { NewOrganizationPage } from "../routes/orgs/NewOrganizationPage.js";
import { OverviewPage } from "../routes/orgs/OverviewPage.js";
import { MembersPage } from "../routes/orgs/MembersPage.js";
import { SettingsPage } from "../routes/orgs/SettingsPage.js";
import { PrincipalPage } from "../routes/principal/PrincipalPage.js";
import { AgentsPage } from "../routes/agents/AgentsPage.js";
import { AgentPage } from "../routes/agents/AgentPage.js";
import { ApprovalsPage } from "../routes/approvals/ApprovalsPage.js";
import { ApprovalPage } from "../routes/approvals/ApprovalPage.js";
import { ActionsPage } from "../routes/actions/ActionsPage.js";
import { ActionPage } from "../routes/actions/ActionPage.js";
import { ReceiptsPage } from "../routes/receipts/ReceiptsPage.js";
import { ReceiptPage } from "../routes/receipts/ReceiptPage.js";
import { VerifyBundlePage } from "../routes/verify/VerifyBundlePage.js";
import { PoliciesRoute, PolicyRoute } from "../routes/policies/routes.js";
import { ManagementKeysPage } from "../routes/keys/ManagementKeysPage.js";
import { AuditLogPage } from "../routes/audit/AuditLogPage.js";
import { BillingPage } from "../routes/billing/BillingPage.js";
import { configurationRoutes } from "../routes/configuration-routes.js";
import { ApiReferenceRoute } from "../routes/api-reference/routes.js";

/** Pages behind sign-in send a signed-out person to /sign-in and back afterwards. */
function SignedIn({ children }: { children: ReactNode }) {
  const { state } = useSession();
  const location = useLocation();
  if (state.status === "loading") return <LoadingLine />;
  if (state.status === "signed-out")
    return (
      <Navigate
        to={`/sign-in?next=${encodeURIComponent(location.pathname + location.search + location.hash)}`}
        replace
      />
    );
  return <>{children}</>;
}

/** The first organization, or the page to make one. */
function Home() {
  const orgs = useOrganizations();
  if (orgs.isPending) return <LoadingLine />;
  const first = orgs.data?.items[0];
  return <Navigate to={first ? `/orgs/${first.id}` : "/orgs/new"} replace />;
}

/** An address no page has: says so, and the way back. */
function NotFound() {
  return (
    <CardPage title="Page not found">
      <Text>This page does not exist. Check the address, or start again from your organizations.</Text>
      <Anchor component={Link} to="/">
        Go to the dashboard
      </Anchor>
    </CardPage>
  );
}

export function App() {
  return (
    <Routes>
      <Route path="/sign-in" element={<SignInPage />} />
      <Route path="/sign-up" element={<SignUpPage />} />
      <Route path="/verify-email" element={<VerifyEmailPage />} />
      <Route path="/verify-email/resend" element={<ResendPage />} />
      <Route path="/password-reset" element={<PasswordResetPage />} />
      <Route path="/email-change/approve" element={<EmailChangeApprovePage />} />
      <Route path="/email-change/reject" element={<EmailChangeRejectPage />} />
      <Route path="/invitations/accept" element={<AcceptInvitationPage />} />
      <Route path="/verify" element={<VerifyBundlePage />} />
      <Route
        element={
          <SignedIn>
            <Shell />
          </SignedIn>
        }
      >
        <Route path="/" element={<Home />} />
        <Route path="/account" element={<AccountPage />} />
        <Route path="/api-reference" element={<ApiReferenceRoute />} />
        <Route path="/orgs/new" element={<NewOrganizationPage />} />
        <Route path="/orgs/:orgId" element={<OverviewPage />} />
        <Route path="/orgs/:orgId/principal" element={<PrincipalPage />} />
        <Route path="/orgs/:orgId/members" element={<MembersPage />} />
        <Route path="/orgs/:orgId/settings" element={<SettingsPage />} />
        <Route path="/orgs/:orgId/agents" element={<AgentsPage />} />
        <Route path="/orgs/:orgId/agents/:agentId" element={<AgentPage />} />
        <Route path="/orgs/:orgId/approvals" element={<ApprovalsPage />} />
        <Route path="/orgs/:orgId/approvals/:approvalId" element={<ApprovalPage />} />
        <Route path="/orgs/:orgId/actions" element={<ActionsPage />} />
        <Route path="/orgs/:orgId/actions/:actionId" element={<ActionPage />} />
        <Route path="/orgs/:orgId/receipts" element={<ReceiptsPage />} />
        <Route path="/orgs/:orgId/receipts/:receiptId" element={<ReceiptPage />} />
        <Route path="/orgs/:orgId/policies" element={<PoliciesRoute />} />
        <Route path="/orgs/:orgId/policies/:policyId/:section?" element={<PolicyRoute />} />
        <Route path="/orgs/:orgId/keys" element={<ManagementKeysPage />} />
        <Route path="/orgs/:orgId/audit" element={<AuditLogPage />} />
        <Route path="/orgs/:orgId/billing" element={<BillingPage />} />
        {configurationRoutes}
      </Route>
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
