import { lazy, Suspense } from "react";
import { LoadingLine } from "../../components/Loading.js";

// The policy pages carry the code editor and the policy engine: loaded when first opened.
const Policies = lazy(() => import("./PoliciesPage.js").then((m) => ({ default: m.PoliciesPage })));
const Policy = lazy(() => import("./PolicyPage.js").then((m) => ({ default: m.PolicyPage })));

export const PoliciesRoute = () => (
  <Suspense fallback={<LoadingLine />}>
    <Policies />
  </Suspense>
);
export const PolicyRoute = () => (
  <Suspense fallback={<LoadingLine />}>
    <Policy />
  </Suspense>
);
