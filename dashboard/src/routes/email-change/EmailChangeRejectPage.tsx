import { sessionApi } from "../../api/session.js";
import { ActionForm } from "../../components/ActionForm.js";
import { CardPage, Done } from "../../components/CardPage.js";
import { useLinkToken } from "../token.js";

/** The link sent to the old address: stops a change its owner did not ask for. */
export function EmailChangeRejectPage() {
  const token = useLinkToken() ?? "";
  return (
    <CardPage
      title="Stop the e-mail change"
      description="Someone asked to move your account to another address. If it was not you, stop it here."
    >
      <ActionForm
        submit="Stop the change"
        onSubmit={async () => {
          await sessionApi.rejectEmailChange(token);
        }}
        done={
          <Done>
            The change is stopped; your account keeps this address. Consider changing your password.
          </Done>
        }
      />
    </CardPage>
  );
}
