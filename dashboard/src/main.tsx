import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter } from "react-router";
import { DashboardError } from "./api/errors.js";
import { App } from "./app/App.js";
import { SessionProvider } from "./session/session.js";
import "./styles.css";

// A refused session ends it in every view at once (see SessionExpiry).
const expiredListeners = new Set<() => void>();
const onError = (err: unknown) => {
  if (err instanceof DashboardError && err.code === "UNAUTHENTICATED") for (const l of expiredListeners) l();
};
const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    queries: {
      retry: (n, err) => !(err instanceof DashboardError && err.status && err.status < 500) && n < 2,
      staleTime: 2000,
    },
  },
});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <SessionProvider expiredListeners={expiredListeners}>
          <App />
        </SessionProvider>
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
