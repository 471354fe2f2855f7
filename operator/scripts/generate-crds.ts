// `make crds`: writes crds/*.yaml from the operator's typed schemas.
import { readdirSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { renderCrds } from "../src/crds/render.js";

const dir = fileURLToPath(new URL("../../crds/", import.meta.url));
const files = renderCrds();
for (const name of readdirSync(dir)) {
  if (name.endsWith(".yaml") && !files.has(name)) unlinkSync(join(dir, name));
}
for (const [name, text] of files) writeFileSync(join(dir, name), text);
console.log(`wrote ${files.size} CRDs to crds/`);
