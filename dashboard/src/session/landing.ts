/**
 * Where sign-in lands. The `next` a sign-in page carries was the page of whoever was signed in
 * before (a session that ended, a sign-out, a shared browser): it is followed only when it is a page
 * of the person now signed in. An organization's page is theirs when the Cloud API shows them the
 * organization (GET /orgs/<id> answers only members); anything else lands on their own first
 * organization ("/").
 */
import { organizationsApi } from "../api/organizations.js";

const ORG_PAGE = /^\/orgs\/([^/?#]+)/;

export async function landingFor(next: string | null): Promise<string> {
  // Only a path of this dashboard: never another origin ("//host", "https://...").
  if (!next || !next.startsWith("/") || next.startsWith("//")) return "/";
  const org = ORG_PAGE.exec(next)?.[1];
  if (!org || org === "new") return next;
  try {
    await organizationsApi.get(org);
    return next;
  } catch {
    return "/";
  }
}
