import { Anchor } from "@mantine/core";
import { Link } from "react-router";
import { sessionApi } from "../../api/session.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { CardPage, Done } from "../../components/CardPage.js";

export function ResendPage() {
  return (
    <CardPage
      title="Resend the verification e-mail"
      description="A new link replaces the one sent before."
      below={
        <Anchor component={Link} to="/sign-in" size="sm">
          Back to sign-in
        </Anchor>
      }
    >
      <ActionForm
        submit="Send"
        onSubmit={async (d) => {
          await sessionApi.resendVerification(field(d, "email"));
        }}
        done={<Done>If this address has an unverified account, a new link is on its way.</Done>}
      >
        <Field
          label="E-mail"
          name="email"
          type="email"
          autoComplete="username"
          subject="The e-mail address"
        />
      </ActionForm>
    </CardPage>
  );
}
