import { Alert, Anchor } from "@mantine/core";
import { Link, useLocation, useNavigate } from "react-router";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { CardPage } from "../../components/CardPage.js";
import { landingFor } from "../../session/landing.js";
import { useSession } from "../../session/session.js";

export function SignInPage() {
  const { signIn, state } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const next = new URLSearchParams(location.search).get("next");
  const expired = state.status === "signed-out" && state.reason === "expired";
  return (
    <CardPage
      title="Sign in"
      below={
        <>
          <Anchor component={Link} to="/sign-up" size="sm">
            Create an account
          </Anchor>
          <Anchor component={Link} to="/password-reset" size="sm">
            Forgot your password?
          </Anchor>
          <Anchor component={Link} to="/verify-email/resend" size="sm">
            Resend the verification e-mail
          </Anchor>
        </>
      }
    >
      {expired && (
        <Alert role="status" color="yellow" variant="light">
          Your session ended. Sign in again to continue.
        </Alert>
      )}
      <ActionForm
        submit="Sign in"
        onSubmit={async (d) => {
          await signIn(field(d, "email"), field(d, "password"));
          navigate(await landingFor(next), { replace: true });
        }}
      >
        <Field
          label="E-mail"
          name="email"
          type="email"
          autoComplete="username"
          subject="The e-mail address"
        />
        <Field label="Password" name="password" type="password" autoComplete="current-password" />
      </ActionForm>
    </CardPage>
  );
}
