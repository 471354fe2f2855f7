import { Link } from "react-router";
import { sessionApi } from "../../api/session.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { useLinkToken } from "../token.js";

/** Without a token: ask for a reset link. With the link's token: choose the new password. */
export function PasswordResetPage() {
  const token = useLinkToken();
  if (!token)
    return (
      <main className="narrow" key="request">
        <h1>Reset your password</h1>
        <ActionForm
          submit="Send a reset link"
          onSubmit={async (d) => {
            await sessionApi.requestPasswordReset(field(d, "email"));
          }}
          done={<p role="status">If the address has an account, a reset link was sent to it.</p>}
        >
          <Field label="E-mail" name="email" type="email" />
        </ActionForm>
      </main>
    );
  // Keyed by the token, so a form finished for one link never stands in for the next one.
  return (
    <main className="narrow" key={token}>
      <h1>Choose a new password</h1>
      <ActionForm
        submit="Set the password"
        onSubmit={async (d) => {
          await sessionApi.confirmPasswordReset(token, field(d, "password"));
        }}
        done={
          <p role="status">
            Your password is changed and your other sessions are signed out.{" "}
            <Link to="/sign-in">Sign in</Link>
          </p>
        }
      >
        <Field
          label="New password (12 to 256 characters)"
          name="password"
          type="password"
          autoComplete="new-password"
        />
      </ActionForm>
    </main>
  );
}
