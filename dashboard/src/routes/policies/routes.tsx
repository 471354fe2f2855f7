import { lazy, Suspense } from "react";

// The policy pages carry the code editor and the policy engine: loaded when first opened.
const Policies = lazy(() => import("./PoliciesPage.js").then((m) => ({ default: m.PoliciesPage })));
const Policy = lazy(() => import("./PolicyPage.js").then((m) => ({ default: m.PolicyPage })));
const loading = <p className="muted">Loading…</p>;

export const PoliciesRoute = () => (
  <Suspense fallback={loading}>
    <Policies />
  </Suspense>
);
export const PolicyRoute = () => (
  <Suspense fallback={loading}>
    <Policy />
  </Suspense>
);
