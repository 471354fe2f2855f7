/**
 * The signed-in person as this tab knows them: loaded from GET /auth/session, kept across tabs
 * through the account marker, ended on sign-out or when the session expires (12 h idle, 7 days).
 */
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { onSessionEnded, setTabSession } from "../api/cloud.js";
import { hasCode } from "../api/errors.js";
import { sessionApi } from "../api/session.js";
import type { Session } from "@countersign/protocol/wire";
import { currentAccount, markAccount, onAccountChange } from "./account-marker.js";

type SessionState =
  | { status: "loading" }
  | { status: "signed-out"; reason?: "expired" | "signed-out" }
  | { status: "signed-in"; session: Session };

interface SessionApi {
  state: SessionState;
  /** True when another tab signed in as someone else or signed out. */
  changedElsewhere: boolean;
  signIn(email: string, password: string): Promise<Session>;
  signOut(): Promise<void>;
  reload(): Promise<void>;
  /** A request answered UNAUTHENTICATED: the session is over. */
  expired(): void;
}

const SessionContext = createContext<SessionApi | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ status: "loading" });
  const [changedElsewhere, setChangedElsewhere] = useState(false);
  const queryClient = useQueryClient();

  const adopt = useCallback((s: Session | null, reason?: "expired" | "signed-out") => {
    setTabSession({
      userId: s?.user.id ?? null,
      csrfToken: s?.csrf_token ?? null,
      accountNow: currentAccount,
    });
    setState(s ? { status: "signed-in", session: s } : { status: "signed-out", reason });
  }, []);

  const reload = useCallback(async () => {
    try {
      const { session } = await sessionApi.current();
      markAccount(session.user.id);
      setChangedElsewhere(false);
      adopt(session);
    } catch (err) {
      if (hasCode(err, "UNAUTHENTICATED")) adopt(null);
      else throw err;
    }
  }, [adopt]);

  useEffect(() => {
    reload().catch(() => adopt(null));
  }, [reload, adopt]);

  // Any request refused UNAUTHENTICATED ends the session here, with the way back to sign-in.
  useEffect(
    () =>
      onSessionEnded(() => {
        queryClient.clear();
        adopt(null, "expired");
      }),
    [queryClient, adopt],
  );

  // Another tab signed in or out: this tab's changes are refused until it reloads.
  useEffect(
    () =>
      onAccountChange((userId) => {
        if (state.status === "signed-in" ? userId !== state.session.user.id : userId !== null)
          setChangedElsewhere(true);
      }),
    [state],
  );

  // The session's own end, without waiting for a refused request.
  useEffect(() => {
    if (state.status !== "signed-in") return;
    const end = Math.min(Date.parse(state.session.expires_at), Date.parse(state.session.idle_expires_at));
    const timer = setTimeout(
      () => adopt(null, "expired"),
      Math.max(0, Math.min(end - Date.now(), 2 ** 31 - 1)),
    );
    return () => clearTimeout(timer);
  }, [state, adopt]);

  const value: SessionApi = {
    state,
    changedElsewhere,
    async signIn(email, password) {
      const { session } = await sessionApi.signIn(email, password);
      markAccount(session.user.id);
      queryClient.clear();
      setChangedElsewhere(false);
      adopt(session);
      return session;
    },
    async signOut() {
      if (state.status === "signed-in" && currentAccount() === state.session.user.id)
        await sessionApi.signOut();
      markAccount(null);
      queryClient.clear();
      adopt(null, "signed-out");
    },
    reload,
    expired() {
      queryClient.clear();
      adopt(null, "expired");
    },
  };
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionApi {
  const s = useContext(SessionContext);
  if (!s) throw new Error("useSession outside SessionProvider");
  return s;
}

export function useSignedIn(): Session {
  const { state } = useSession();
  if (state.status !== "signed-in") throw new Error("not signed in");
  return state.session;
}
