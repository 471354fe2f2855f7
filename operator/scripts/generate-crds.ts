// `make crds`: writes crds/*.yaml from the operator's typed schemas, and the chart's copies of them
// and of the operator's RBAC (charts/countersign/files/: Helm warns about symlinks and packages
// only real files; operator/src/crds/render.test.ts fails when a copy is stale).
import { copyFileSync, readdirSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { renderCrds } from "../src/crds/render.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const files = renderCrds();
for (const dir of [join(root, "crds"), join(root, "charts/countersign/files/crds")]) {
  for (const name of readdirSync(dir)) {
    if (name.endsWith(".yaml") && !files.has(name)) unlinkSync(join(dir, name));
  }
  for (const [name, text] of files) writeFileSync(join(dir, name), text);
}
copyFileSync(
  join(root, "config/rbac/operator-clusterrole.yaml"),
  join(root, "charts/countersign/files/operator-clusterrole.yaml"),
);
console.log(`wrote ${files.size} CRDs to crds/ and charts/countersign/files/crds/`);
