import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter } from "react-router";
import { failureOf } from "./api/errors.js";
import { App } from "./app/App.js";
import { SessionProvider } from "./session/session.js";
import { MantineProvider } from "@mantine/core";
import "@fontsource-variable/inter/wght.css";
import "@mantine/core/styles.layer.css";
import "./styles.css";
import { theme } from "./theme/theme.js";
import { styleNonce } from "./theme/style-nonce.js";
import { contrastResolver } from "./theme/contrast.js";

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      retry: (n, err) => {
        // A refusal (4xx) stays a refusal; a failure without an answer or a 5xx may pass.
        const status = failureOf(err)?.status;
        return !(status && status < 500) && n < 2;
      },
      staleTime: 2000,
    },
  },
});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <MantineProvider
      theme={theme}
      defaultColorScheme="auto"
      getStyleNonce={styleNonce}
      cssVariablesResolver={contrastResolver}
    >
      <QueryClientProvider client={queryClient}>
        <BrowserRouter>
          <SessionProvider>
            <App />
          </SessionProvider>
        </BrowserRouter>
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
