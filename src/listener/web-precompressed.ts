/**
 * The page's compressed forms, made at build time (scripts/precompress-web.mjs, from `npm run build`) so that no
 * request waits for brotli at its best quality (about half a second for the page, up to seconds under load).
 *
 * Beside index.html the build writes index.html.br (brotli, quality 11), index.html.gz (gzip, level 9) and
 * index.html.precompressed.json, which names the SHA-256 of the HTML they were made from and each file's SHA-256.
 * The route serves a file only when that HTML is the page it serves and the file is the one the manifest names,
 * so a stale or damaged file (a page rebuilt without its compressed forms, or edited in SKIFF_WEB_DEV_DIR) is never
 * served: the route compresses the page itself then, on the thread pool, as it did before.
 */
import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

export type Encoding = "br" | "gzip";

const compressBrotli = promisify(brotliCompress);
const compressGzip = promisify(gzip);

/** The page's file and, for each encoding, its compressed form's file beside it. */
export const PAGE_FILE = "index.html";
const FILES: Record<Encoding, string> = { br: `${PAGE_FILE}.br`, gzip: `${PAGE_FILE}.gz` };
const MANIFEST = `${PAGE_FILE}.precompressed.json`;

type Manifest = { source: string; files: Partial<Record<Encoding, { file: string; sha256: string }>> };

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** Compresses the page as the route serves it: brotli at quality 11 unless told otherwise (tests), gzip at level 9. */
export function compressPage(page: Buffer, encoding: Encoding, brotliQuality = 11): Promise<Buffer> {
	return encoding === "br" ? compressBrotli(page, { params: { [constants.BROTLI_PARAM_QUALITY]: brotliQuality } }) : compressGzip(page, { level: 9 });
}

/** Writes the compressed forms of `dir`/index.html and their manifest (the build; tests). */
export async function writePrecompressed(dir: string, options: { brotliQuality?: number } = {}): Promise<void> {
	const page = await readFile(join(dir, PAGE_FILE));
	const manifest: Manifest = { source: sha256(page), files: {} };
	for (const encoding of ["br", "gzip"] as const) {
		const body = await compressPage(page, encoding, options.brotliQuality);
		await writeFile(join(dir, FILES[encoding]), body);
		manifest.files[encoding] = { file: FILES[encoding], sha256: sha256(body) };
	}
	// Written last: until it is, the route finds no manifest (or the previous one, which names another page).
	await writeFile(join(dir, MANIFEST), `${JSON.stringify(manifest, null, "\t")}\n`);
}

/**
 * The build's compressed form of `page` in `dir`, or undefined when there is none for this page (no manifest, one
 * made from other HTML, a file missing or not the one the manifest names).
 */
export async function readPrecompressed(dir: string, page: Buffer, encoding: Encoding): Promise<Buffer | undefined> {
	try {
		const manifest = JSON.parse(await readFile(join(dir, MANIFEST), "utf8")) as Manifest;
		const entry = manifest.files?.[encoding];
		if (manifest.source !== sha256(page) || !entry || entry.file !== FILES[encoding]) return undefined;
		const body = await readFile(join(dir, entry.file));
		return sha256(body) === entry.sha256 ? body : undefined;
	} catch {
		return undefined;
	}
}
