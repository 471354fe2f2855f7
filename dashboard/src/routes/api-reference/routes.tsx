import { lazy, Suspense } from "react";
import { LoadingLine } from "../../components/Loading.js";

// Scalar's viewer is larger than the rest of the dashboard together: loaded when the page is opened,
// after scalar-styles.ts, whose nonce its modules' <style> elements need as they load.
const ApiReference = lazy(() =>
  import("./scalar-styles.js")
    .then(() => import("./ApiReferencePage.js"))
    .then((m) => ({ default: m.ApiReferencePage })),
);

export const ApiReferenceRoute = () => (
  <Suspense fallback={<LoadingLine />}>
    <ApiReference />
  </Suspense>
);
