import { Anchor } from "@mantine/core";
import { Link } from "react-router";
import { sessionApi } from "../../api/session.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { CardPage, Done } from "../../components/CardPage.js";
import { useLinkToken } from "../token.js";

/** The link sent to the new address: the account's password confirms the move. */
export function EmailChangeApprovePage() {
  const token = useLinkToken() ?? "";
  return (
    <CardPage
      title="Confirm your new e-mail address"
      description="Your account moves to this address once you confirm with its password."
    >
      <ActionForm
        submit="Confirm"
        onSubmit={async (d) => {
          await sessionApi.approveEmailChange(token, field(d, "password"));
        }}
        done={
          <Done>
            Your account now uses this address.{" "}
            <Anchor component={Link} to="/sign-in">
              Sign in
            </Anchor>
          </Done>
        }
      >
        <Field label="Your password" name="password" type="password" autoComplete="current-password" />
      </ActionForm>
    </CardPage>
  );
}
