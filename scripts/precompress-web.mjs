/**
 * Writes the built page's compressed forms beside it (dist/web/index.html.br, .gz and their manifest), so that
 * GET /web never compresses on a user's request: the first brotli request took about half a second on an idle
 * machine (up to seconds under load) while the service compressed the page. Run by `npm run build` after tsc
 * (the format lives in src/listener/web-precompressed.ts, compiled to dist/) and vite (which writes the page).
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { writePrecompressed } from "../dist/listener/web-precompressed.js";

const dir = join(dirname(dirname(fileURLToPath(import.meta.url))), "dist", "web");
if (!existsSync(join(dir, "index.html"))) throw new Error(`no page to compress in ${dir}: vite build writes it first`);
await writePrecompressed(dir);
