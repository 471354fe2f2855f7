import { Link } from "react-router";
import { sessionApi } from "../../api/session.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";

export function SignUpPage() {
  return (
    <main className="narrow">
      <h1>Create your account</h1>
      <ActionForm
        submit="Sign up"
        onSubmit={async (d) => {
          await sessionApi.signUp(field(d, "email"), field(d, "password"));
        }}
        done={
          <p role="status">
            Check your inbox: we sent a link to verify your address. Follow it, then sign in.
          </p>
        }
      >
        <Field label="E-mail" name="email" type="email" autoComplete="username" />
        <Field
          label="Password (12 to 256 characters)"
          name="password"
          type="password"
          autoComplete="new-password"
        />
      </ActionForm>
      <p>
        Already have an account? <Link to="/sign-in">Sign in</Link>
      </p>
    </main>
  );
}
