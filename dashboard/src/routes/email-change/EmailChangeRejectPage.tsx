import { sessionApi } from "../../api/session.js";
import { ActionForm } from "../../components/ActionForm.js";
import { useLinkToken } from "../token.js";

/** The link sent to the old address: stops a change its owner did not ask for. */
export function EmailChangeRejectPage() {
  const token = useLinkToken() ?? "";
  return (
    <main className="narrow">
      <h1>Stop the e-mail change</h1>
      <p>Someone asked to move your account to another address. If it was not you, stop it here.</p>
      <ActionForm
        submit="Stop the change"
        onSubmit={async () => {
          await sessionApi.rejectEmailChange(token);
        }}
        done={
          <p role="status">
            The change is stopped; your account keeps this address. Consider changing your password.
          </p>
        }
      />
    </main>
  );
}
