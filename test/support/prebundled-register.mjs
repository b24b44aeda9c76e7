/**
 * Imported first by each test file the suite's runner starts (`--import`): sends the specifiers of the packages
 * the runner bundled (prebundled-packages.ts) to their bundles. Without the runner's variable it does nothing.
 */
import { register } from "node:module";

const bundles = process.env.SKIFF_TEST_PREBUNDLED;
if (bundles) register(new URL("./prebundled-resolve.mjs", import.meta.url), { data: JSON.parse(bundles) });
