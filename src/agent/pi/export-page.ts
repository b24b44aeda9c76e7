/**
 * pi's standalone HTML export made safe to keep. A saved page is opened from disk, where no response header
 * reaches it: its policy must be in the document. So the page gets a Content-Security-Policy `<meta>` as the
 * first thing in its `<head>`, before anything that could load (nothing remote: no image, script, style,
 * font or connection; only the page's own inline script and styles and `data:` images), and the session it
 * embeds (base64 JSON that pi's script renders, markdown images included) is redacted as the web page redacts
 * what it shows. A page whose layout is not the one this reads is refused, never written unredacted.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeFileAtomically } from "../../shared/atomic-write.js";
import { CodedError } from "../../shared/errors.js";
import { redactSecrets } from "../../shared/redact.js";
import { redactValue } from "../../shared/redact-value.js";

/**
 * The policy in the page. `frame-ancestors` and `sandbox` have no effect in a `<meta>`; the download route
 * sends them as headers (src/listener/export-route.ts).
 */
export const EXPORT_PAGE_POLICY =
	"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const HEAD = /^(\s*<!DOCTYPE html>\s*<html\b[^>]*>\s*<head>)/i;
/** Where pi's page keeps the session: one script element of base64 JSON. */
const SESSION_DATA = /(<script id="session-data" type="application\/json">)([A-Za-z0-9+/=]*)(<\/script>)/g;

/** pi titles its page "Session Export" and its heading by the session's id. */
const TITLE = /<title>Session Export<\/title>/;
const HEADING = "Session: ${escapeHtml(header?.id || 'unknown')}";

/**
 * The page pi wrote, with its policy and its session redacted, titled `title` (the session's name) when one is
 * given; throws when the page is not laid out as expected.
 */
export function sealExportPage(html: string, title?: string): string {
	if (!HEAD.test(html)) throw unexpected("it does not start with a <head>");
	const found = [...html.matchAll(SESSION_DATA)];
	if (found.length !== 1) throw unexpected(`it holds ${found.length} session data elements, not one`);
	const [whole, open, data, close] = found[0]!;
	const session = JSON.parse(Buffer.from(data!, "base64").toString("utf8")) as unknown;
	const redacted = Buffer.from(JSON.stringify(redactValue(session).value), "utf8").toString("base64");
	const index = found[0]!.index!;
	let body = `${html.slice(0, index)}${open}${redacted}${close}${html.slice(index + whole.length)}`;
	if (title) body = titled(body, redactSecrets(title));
	return body.replace(HEAD, `$1\n  <meta http-equiv="Content-Security-Policy" content="${EXPORT_PAGE_POLICY}">`);
}

/**
 * The page with `title` as its document title and heading. The heading is drawn by pi's script, so the name goes
 * in as a string literal that cannot end the script element (`<` escaped); a layout without it keeps pi's.
 */
function titled(html: string, title: string): string {
	const literal = JSON.stringify(title).replace(/</g, "\\u003c");
	return html.replace(TITLE, () => `<title>${escapeHtml(title)}</title>`).replace(HEADING, () => `\${escapeHtml(${literal})}`);
}

function escapeHtml(text: string): string {
	return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Has pi `render` the page into a private temporary folder (pi writes wherever it is told, unredacted), then
 * writes the sealed page to `path` whole (private to the user: it holds a conversation). Returns `path`.
 */
export async function exportSealedPage(render: (path: string) => Promise<string>, path: string, title?: string): Promise<string> {
	const dir = await mkdtemp(join(tmpdir(), "skiff-export-"));
	try {
		const page = sealExportPage(await readFile(await render(join(dir, "page.html")), "utf8"), title);
		writeFileAtomically(path, page);
		return path;
	} finally {
		await rm(dir, { recursive: true, force: true });
	}
}

function unexpected(why: string): CodedError {
	return new CodedError("failed", `The exported page could not be made safe to keep (${why}; pi's export layout may have changed), so it was not written`);
}
