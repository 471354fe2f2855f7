import { lazy, Suspense } from "react";

// Scalar's viewer is larger than the rest of the dashboard together: loaded when the page is opened.
const ApiReference = lazy(() =>
  import("./ApiReferencePage.js").then((m) => ({ default: m.ApiReferencePage })),
);

export const ApiReferenceRoute = () => (
  <Suspense fallback={<p className="muted">Loading…</p>}>
    <ApiReference />
  </Suspense>
);
