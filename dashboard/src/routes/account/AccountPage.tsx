import { sessionApi } from "../../api/session.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { useSignedIn } from "../../session/session.js";
import { PersonalIdentities } from "./PersonalIdentities.js";

/** The person's own account: password, e-mail address, and the keys they approve with. */
export function AccountPage() {
  const session = useSignedIn();
  return (
    <main>
      <h1>Your account</h1>
      <p>
        Signed in as <strong data-testid="account-email">{session.user.email}</strong>
      </p>
      <PersonalIdentities />
      <section>
        <h2>Change password</h2>
        <ActionForm
          submit="Change password"
          onSubmit={async (d) => {
            await sessionApi.changePassword(field(d, "current"), field(d, "new"));
          }}
          done={<p role="status">Your password is changed; your other sessions were signed out.</p>}
        >
          <Field label="Current password" name="current" type="password" autoComplete="current-password" />
          <Field label="New password" name="new" type="password" autoComplete="new-password" />
        </ActionForm>
      </section>
      <section>
        <h2>Change e-mail address</h2>
        <ActionForm
          submit="Change e-mail"
          onSubmit={async (d) => {
            await sessionApi.changeEmail(field(d, "email"), field(d, "password"));
          }}
          done={
            <p role="status">
              We sent a confirmation link to the new address, and a notice to the current one.
            </p>
          }
        >
          <Field label="New e-mail" name="email" type="email" />
          <Field label="Password" name="password" type="password" autoComplete="current-password" />
        </ActionForm>
      </section>
    </main>
  );
}
