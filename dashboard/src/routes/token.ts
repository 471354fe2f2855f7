import { useLocation } from "react-router";

/**
 * E-mail links carry their token in the fragment (#token=…) so it never reaches a server log. Read
 * through the router, so following a link while already on its page still shows the new token.
 */
export function useLinkToken(): string | null {
  const { hash } = useLocation();
  return new URLSearchParams(hash.replace(/^#/, "")).get("token");
}
