import { Link } from "react-router";
import { sessionApi } from "../../api/session.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { useLinkToken } from "../token.js";

/** The link sent to the new address: the account's password confirms the move. */
export function EmailChangeApprovePage() {
  const token = useLinkToken() ?? "";
  return (
    <main className="narrow">
      <h1>Confirm your new e-mail address</h1>
      <ActionForm
        submit="Confirm"
        onSubmit={async (d) => {
          await sessionApi.approveEmailChange(token, field(d, "password"));
        }}
        done={
          <p role="status">
            Your account now uses this address. <Link to="/sign-in">Sign in</Link>
          </p>
        }
      >
        <Field label="Your password" name="password" type="password" autoComplete="current-password" />
      </ActionForm>
    </main>
  );
}
