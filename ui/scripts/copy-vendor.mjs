// Copies the OpenAPI page's renderer (ReDoc's standalone bundle) into the built bundle, so the
// server's /engine-rest/openapi page renders with no network: rest/ui_bundle/vendor/.
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ui = join(dirname(fileURLToPath(import.meta.url)), "..");
const vendor = join(ui, "..", "rest", "ui_bundle", "vendor");
mkdirSync(vendor, { recursive: true });
for (const [from, to] of [
  ["node_modules/redoc/bundles/redoc.standalone.js", "redoc.standalone.js"],
  ["node_modules/redoc/bundles/redoc.standalone.js.LICENSE.txt", "redoc.standalone.js.LICENSE.txt"],
]) {
  copyFileSync(join(ui, from), join(vendor, to));
}
