import { Anchor, Text } from "@mantine/core";
import { Link } from "react-router";
import { sessionApi } from "../../api/session.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { CardPage, Done } from "../../components/CardPage.js";

export function SignUpPage() {
  return (
    <CardPage
      title="Create your account"
      description="We send a link to your address; you sign in once you have followed it."
      below={
        <Text size="sm">
          Already have an account?{" "}
          <Anchor component={Link} to="/sign-in">
            Sign in
          </Anchor>
        </Text>
      }
    >
      <ActionForm
        submit="Sign up"
        onSubmit={async (d) => {
          await sessionApi.signUp(field(d, "email"), field(d, "password"));
        }}
        done={<Done>Check your inbox: we sent a link to verify your address. Follow it, then sign in.</Done>}
      >
        <Field
          label="E-mail"
          name="email"
          type="email"
          autoComplete="username"
          subject="The e-mail address"
        />
        {/* The length rule is the Cloud API's: its refusal's sentence shows under the field. */}
        <Field
          label="Password (12 to 256 characters)"
          name="password"
          type="password"
          autoComplete="new-password"
        />
      </ActionForm>
    </CardPage>
  );
}
