import { Link, useNavigate } from "react-router";
import { invitationsApi } from "../../api/members.js";
import { ActionForm } from "../../components/ActionForm.js";
import { useSession } from "../../session/session.js";
import { useLinkToken } from "../token.js";

/** The invitation link: a signed-in invitee with the invited, verified address joins. */
export function AcceptInvitationPage() {
  const { state } = useSession();
  const navigate = useNavigate();
  const token = useLinkToken() ?? "";
  if (state.status !== "signed-in")
    return (
      <main className="narrow">
        <h1>Join an organization</h1>
        <p>
          Sign in with the invited address first (or <Link to="/sign-up">create an account</Link> with it,
          verify it, and sign in), then open the link from the e-mail again.
        </p>
        <Link to={`/sign-in?next=${encodeURIComponent(`/invitations/accept#token=${token}`)}`}>Sign in</Link>
      </main>
    );
  return (
    <main className="narrow">
      <h1>Join an organization</h1>
      <p>You are signed in as {state.session.user.email}.</p>
      <ActionForm
        submit="Accept the invitation"
        onSubmit={async () => {
          const joined = await invitationsApi.accept(token);
          navigate(`/orgs/${joined.organization_id}`);
        }}
      />
    </main>
  );
}
