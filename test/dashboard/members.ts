/**
 * People of a test organization, made through the dashboard as people make them: an owner who
 * creates the organization (and its principal, when agents are to be authorized), and members who
 * accept an e-mailed invitation in their own browser.
 */
import type { Page } from "playwright-core";
import type { Role } from "../../protocol/src/wire/index.js";
import { mailedLink, newEmail, signUpInBrowser, type DashboardWorld } from "../fixtures/dashboard.js";
import { sessionRequest } from "./setup-refunds.js";

export async function ownerOfNewOrganization(
  world: DashboardWorld,
  name: string,
  opts: { principal?: boolean } = {},
): Promise<{ owner: Page; orgId: string }> {
  const owner = (await world.person()).page;
  await signUpInBrowser(world, owner, newEmail("owner"));
  await owner.getByLabel("Name").fill(name);
  await owner.getByRole("button", { name: "Create" }).click();
  await owner.getByRole("button", { name: "Create the principal" }).waitFor();
  const orgId = new URL(owner.url()).pathname.split("/")[2]!;
  if (opts.principal) {
    await owner.getByRole("button", { name: "Create the principal" }).click();
    await owner.getByRole("link", { name: "Download the key backup" }).click();
    await owner.getByRole("button", { name: "Register the principal" }).click();
    await owner.getByTestId("principal-held").waitFor();
  }
  return { owner, orgId };
}

export async function joinAs(
  world: DashboardWorld,
  owner: Page,
  orgId: string,
  role: Exclude<Role, "owner">,
): Promise<Page> {
  const email = newEmail(role);
  await sessionRequest(owner, "POST", `/orgs/${orgId}/invitations`, { email, role });
  const link = await mailedLink(world, email, "invitations/accept");
  const { page } = await world.person();
  await signUpInBrowser(world, page, email);
  await page.goto(link);
  await page.getByRole("button", { name: "Accept the invitation" }).click();
  await page.getByTestId("role").getByText(role).waitFor();
  return page;
}

/**
 * Confirms the next destructive action as a person does: once its ConfirmDialog opens (a Mantine
 * modal that leads with the consequence), clicks the dialog's confirming button, the last one (the
 * first is Cancel). Armed before the click that opens the dialog, as the old window.confirm handler
 * was; `confirmInDialog` does the same after the click and names the button.
 */
export const acceptNextDialog = (page: Page) => {
  const dialog = page.getByRole("dialog");
  void dialog
    .waitFor({ timeout: 30_000 })
    .then(() =>
      dialog
        .getByRole("button")
        .filter({ hasNotText: /^Cancel$/ })
        .last()
        .click(),
    )
    .catch(() => undefined); // no dialog came: the caller's next step fails with its own message
};

/** Clicks `confirmLabel` in the open ConfirmDialog, after reading that it leads with a consequence. */
export async function confirmInDialog(page: Page, confirmLabel: string): Promise<void> {
  const dialog = page.getByRole("dialog");
  await dialog.waitFor();
  await dialog.getByRole("button", { name: confirmLabel }).click();
  await dialog.waitFor({ state: "detached" });
}
