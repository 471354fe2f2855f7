import { Anchor, Button, Text } from "@mantine/core";
import { Link, useNavigate } from "react-router";
import { invitationsApi } from "../../api/members.js";
import { ActionForm } from "../../components/ActionForm.js";
import { CardPage } from "../../components/CardPage.js";
import { useSession } from "../../session/session.js";
import { useLinkToken } from "../token.js";

/** The invitation link: a signed-in invitee with the invited, verified address joins. */
export function AcceptInvitationPage() {
  const { state } = useSession();
  const navigate = useNavigate();
  const token = useLinkToken() ?? "";
  if (state.status !== "signed-in")
    return (
      <CardPage title="Join an organization">
        <Text>
          Sign in with the invited address first (or{" "}
          <Anchor component={Link} to="/sign-up">
            create an account
          </Anchor>{" "}
          with it, verify it, and sign in), then open the link from the e-mail again.
        </Text>
        <Button
          component={Link}
          to={`/sign-in?next=${encodeURIComponent(`/invitations/accept#token=${token}`)}`}
          variant="filled"
          style={{ alignSelf: "flex-start" }}
        >
          Sign in
        </Button>
      </CardPage>
    );
  return (
    <CardPage title="Join an organization">
      <Text>You are signed in as {state.session.user.email}.</Text>
      <ActionForm
        submit="Accept the invitation"
        onSubmit={async () => {
          const joined = await invitationsApi.accept(token);
          navigate(`/orgs/${joined.organization_id}`);
        }}
      />
    </CardPage>
  );
}
