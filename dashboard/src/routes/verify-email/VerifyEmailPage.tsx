import { Anchor } from "@mantine/core";
import { useEffect, useState } from "react";
import { Link } from "react-router";
import { sessionApi } from "../../api/session.js";
import { CardPage, Done } from "../../components/CardPage.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { LoadingLine } from "../../components/Loading.js";
import { useLinkToken } from "../token.js";

// A link's token works once: a page mounted again (a re-render, StrictMode) reuses the first answer.
const verifications = new Map<string, Promise<unknown>>();
const verifyOnce = (token: string) => {
  const known = verifications.get(token);
  if (known) return known;
  const p = sessionApi.verifyEmail(token);
  verifications.set(token, p);
  return p;
};

interface VerifyState {
  done: boolean;
  error: unknown;
}

/** The page of the verification link: posts its token once, on arrival. */
export function VerifyEmailPage() {
  const token = useLinkToken();
  const [state, setState] = useState<VerifyState>({ done: false, error: null });
  useEffect(() => {
    setState({ done: false, error: null });
    if (!token)
      return setState({ done: false, error: new Error("This page needs the link from your e-mail.") });
    verifyOnce(token).then(
      () => setState({ done: true, error: null }),
      (error) => setState({ done: false, error }),
    );
  }, [token]);
  return (
    <CardPage title="Verify your e-mail address">
      {state.done ? (
        <Done>
          Your address is verified.{" "}
          <Anchor component={Link} to="/sign-in">
            Sign in
          </Anchor>
        </Done>
      ) : state.error ? (
        <>
          <ErrorNotice error={state.error} />
          <Anchor component={Link} to="/verify-email/resend">
            Send a new link
          </Anchor>
        </>
      ) : (
        <LoadingLine />
      )}
    </CardPage>
  );
}
