import { sessionApi } from "../../api/session.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";

export function ResendPage() {
  return (
    <main className="narrow">
      <h1>Resend the verification e-mail</h1>
      <ActionForm
        submit="Send"
        onSubmit={async (d) => {
          await sessionApi.resendVerification(field(d, "email"));
        }}
        done={<p role="status">If this address has an unverified account, a new link is on its way.</p>}
      >
        <Field label="E-mail" name="email" type="email" />
      </ActionForm>
    </main>
  );
}
