import { Anchor } from "@mantine/core";
import { Link } from "react-router";
import { sessionApi } from "../../api/session.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { CardPage, Done } from "../../components/CardPage.js";
import { useLinkToken } from "../token.js";

const backToSignIn = (
  <Anchor component={Link} to="/sign-in" size="sm">
    Back to sign-in
  </Anchor>
);

/** Without a token: ask for a reset link. With the link's token: choose the new password. */
export function PasswordResetPage() {
  const token = useLinkToken();
  if (!token)
    return (
      <CardPage
        key="request"
        title="Reset your password"
        description="We send a link to choose a new password to the address, if it has an account."
        below={backToSignIn}
      >
        <ActionForm
          submit="Send a reset link"
          onSubmit={async (d) => {
            await sessionApi.requestPasswordReset(field(d, "email"));
          }}
          done={<Done>If the address has an account, a reset link was sent to it.</Done>}
        >
          <Field
            label="E-mail"
            name="email"
            type="email"
            autoComplete="username"
            subject="The e-mail address"
          />
        </ActionForm>
      </CardPage>
    );
  // Keyed by the token, so a form finished for one link never stands in for the next one.
  return (
    <CardPage
      key={token}
      title="Choose a new password"
      description="Once it is set, your other sessions are signed out."
    >
      <ActionForm
        submit="Set the password"
        onSubmit={async (d) => {
          await sessionApi.confirmPasswordReset(token, field(d, "password"));
        }}
        done={
          <Done>
            Your password is changed and your other sessions are signed out.{" "}
            <Anchor component={Link} to="/sign-in">
              Sign in
            </Anchor>
          </Done>
        }
      >
        <Field
          label="New password (12 to 256 characters)"
          name="password"
          type="password"
          autoComplete="new-password"
        />
      </ActionForm>
    </CardPage>
  );
}
