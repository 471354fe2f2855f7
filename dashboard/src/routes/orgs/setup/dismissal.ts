/**
 * Whether the person hid the setup checklist of an organization before finishing it: remembered in
 * this browser only (localStorage, per organization). A finished checklist is hidden because the
 * Cloud API says every step is done, not because of this.
 */
const keyOf = (orgId: string) => `countersign.setup-hidden.${orgId}`;

export function isDismissed(orgId: string): boolean {
  try {
    return window.localStorage.getItem(keyOf(orgId)) === "1";
  } catch {
    return false; // storage refused (private mode, policy): the checklist simply shows
  }
}

export function setDismissed(orgId: string, dismissed: boolean): void {
  try {
    if (dismissed) window.localStorage.setItem(keyOf(orgId), "1");
    else window.localStorage.removeItem(keyOf(orgId));
  } catch {
    // Not remembered: the checklist shows again on the next visit.
  }
}
