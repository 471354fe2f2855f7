/**
 * Which account this browser is signed in as, shared by every tab through localStorage. A tab
 * remembers the account it loaded with; before any change it compares, so a change meant for
 * one account is never carried out with another's cookie (SESSION_CHANGED). Only the account
 * id is kept: never the session token or the csrf token.
 */
const KEY = "countersign.account";

export function currentAccount(): string | null {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function markAccount(userId: string | null): void {
  try {
    if (userId) localStorage.setItem(KEY, userId);
    else localStorage.removeItem(KEY);
  } catch {
    // Without localStorage tabs cannot compare; the server's csrf check still refuses stale tabs.
  }
}

export function onAccountChange(listener: (userId: string | null) => void): () => void {
  const handler = (e: StorageEvent) => {
    if (e.key === KEY) listener(e.newValue);
  };
  window.addEventListener("storage", handler);
  return () => window.removeEventListener("storage", handler);
}
