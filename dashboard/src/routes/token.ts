/** E-mail links carry their token in the fragment (#token=…) so it never reaches a server log. */
export function tokenFromFragment(): string | null {
  const params = new URLSearchParams(window.location.hash.replace(/^#/, ""));
  return params.get("token");
}
