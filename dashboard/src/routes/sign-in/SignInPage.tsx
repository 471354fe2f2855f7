import { Link, useLocation, useNavigate } from "react-router";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { landingFor } from "../../session/landing.js";
import { useSession } from "../../session/session.js";

export function SignInPage() {
  const { signIn, state } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const next = new URLSearchParams(location.search).get("next");
  const expired = state.status === "signed-out" && state.reason === "expired";
  return (
    <main className="narrow">
      <h1>Sign in</h1>
      {expired && (
        <p className="notice" role="status">
          Your session ended. Sign in again to continue.
        </p>
      )}
      <ActionForm
        submit="Sign in"
        onSubmit={async (d) => {
          await signIn(field(d, "email"), field(d, "password"));
          navigate(await landingFor(next), { replace: true });
        }}
      >
        <Field label="E-mail" name="email" type="email" autoComplete="username" />
        <Field label="Password" name="password" type="password" autoComplete="current-password" />
      </ActionForm>
      <p>
        <Link to="/sign-up">Create an account</Link> · <Link to="/password-reset">Forgot your password?</Link>{" "}
        · <Link to="/verify-email/resend">Resend the verification e-mail</Link>
      </p>
    </main>
  );
}
