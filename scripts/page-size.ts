/**
 * Where the page's gzipped bytes are (issue 21 wants the page ≤ 100 KB gzipped): builds the page as `npm run build`
 * does (web/vite.config.ts, in memory, nothing written) with a source map, and prints, for each source module of the
 * script and each style sheet, its minified bytes and what the document's gzip -9 would lose without it (its
 * marginal cost: the whole compressed with and without that module's bytes; the costs add up to more than the
 * script's share, as a module compresses better beside its neighbours). Usage: npm run size [-- --all]
 * (--all lists every module, not only those costing 200 bytes or more).
 */
import { gzipSync } from "node:zlib";
import { relative } from "node:path";
import { transform } from "lightningcss";
import { type RawSourceMap, SourceMapConsumer } from "source-map-js";
import { build, type Plugin } from "vite";
import { shortenCustomProperties } from "../web/css-variable-names.js";

const root = new URL("..", import.meta.url).pathname;
const showAll = process.argv.includes("--all");
const gz = (text: string) => gzipSync(text, { level: 9 }).length;

/** Takes the script chunk and the style sheet as the build makes them, before the single-file plugin inlines them. */
let script = { code: "" };
const sheets: { id: string; css: string }[] = [];
const capture: Plugin = {
	name: "page-size-capture",
	enforce: "pre",
	transform(code, id) {
		if (id.endsWith(".css")) sheets.push({ id, css: code });
	},
	generateBundle(_options, bundle) {
		for (const file of Object.values(bundle)) {
			if (file.type !== "chunk" || !file.isEntry) continue;
			script = { code: file.code };
			// The sheets in the order the page imports them (as the build joins them), not in the order they were
			// transformed, which varies from run to run and with it each sheet's cost.
			const order: string[] = [];
			const visit = (id: string) => {
				if (order.includes(id)) return;
				order.push(id);
				for (const imported of this.getModuleInfo(id)?.importedIds ?? []) visit(imported);
			};
			if (file.facadeModuleId) visit(file.facadeModuleId);
			sheets.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
		}
	},
};
const outputs = await build({ configFile: `${root}web/vite.config.ts`, logLevel: "warn", plugins: [capture], build: { sourcemap: "hidden", write: false } });
const output = (Array.isArray(outputs) ? outputs[0] : outputs) as { output: { fileName: string; type: string; source?: string | Uint8Array; map?: unknown }[] };
const html = String(output.output.find((file) => file.fileName === "index.html")?.source ?? "");
const sourceMap = JSON.parse(String(output.output.find((file) => file.fileName.endsWith(".js.map"))?.source ?? "{}")) as Partial<RawSourceMap>;
const mapSources = sourceMap.sources ?? [];
if (!html || !script.code || !mapSources.length || !sourceMap.mappings) throw new Error("the build made no page, script or source map (has web/vite.config.ts changed shape?)");

/**
 * Each generated character's source index in `map.sources` (-1: none), read with source-map-js: a mapping owns
 * the characters from its place to the next mapping's, or to its line's end.
 */
function sourceOfEachChar(code: string, map: RawSourceMap): Int32Array {
	const owner = new Int32Array(code.length).fill(-1);
	const lineStarts = [0];
	for (let i = 0; i < code.length; i++) if (code[i] === "\n") lineStarts.push(i + 1);
	const lineEnd = (line: number) => (lineStarts[line] ?? code.length + 1) - 1; // `line` counted from 1
	const consumer = new SourceMapConsumer(map);
	const index = new Map(consumer.sources.map((source, n) => [source, n]));
	let previous: { at: number; line: number; source: number } | undefined;
	consumer.eachMapping(({ generatedLine: line, generatedColumn: column, source }) => {
		const at = (lineStarts[line - 1] ?? code.length) + column;
		if (previous) owner.fill(previous.source, previous.at, line === previous.line ? at : lineEnd(previous.line));
		previous = source === null ? undefined : { at, line, source: index.get(source) ?? -1 };
	});
	if (previous) owner.fill(previous.source, previous.at, lineEnd(previous.line));
	return owner;
}

/** A module's name as the table shows it: its path in the repository, or its package. */
function label(source: string): string {
	const path = relative(`${root}web`, new URL(source, `file://${root}dist/web/`).pathname);
	const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(path);
	return pkg ? `${pkg[1]} (${pkg[2]})` : path.startsWith("..") ? relative(root, `${root}web/${path}`) : `web/${path}`;
}

const whole = gz(html);
const rows: { name: string; bytes: number; cost: number }[] = [];
const allOwners = sourceOfEachChar(script.code, sourceMap as RawSourceMap);
// The single-file plugin drops Vite's module preload polyfill from the chunk's start as it inlines it (and escapes
// `<!--` in it): the costs are measured on the document with the chunk, from where its inlined copy starts, in place
// of that copy (which compresses to within a few bytes of it).
const inlineAt = html.indexOf(">", html.lastIndexOf("<script type=\"module\"")) + 1;
const inlineEnd = html.indexOf("</script>", inlineAt);
const chunkFrom = script.code.indexOf(html.slice(inlineAt, inlineAt + 200));
if (inlineAt <= 0 || inlineEnd < 0 || chunkFrom < 0) throw new Error("the script is not in the document as the build made it");
const owner = allOwners.subarray(chunkFrom);
script.code = script.code.slice(chunkFrom);
const page = html.slice(0, inlineAt) + script.code + html.slice(inlineEnd);
const scriptAt = inlineAt;
const pageGz = gz(page);
const sources = new Set(owner);
/** The document without the script's characters that `drop` names. */
const htmlWithout = (drop: (source: number) => boolean) => {
	const kept: string[] = [];
	let from = 0;
	for (let at = 0; at <= owner.length; at++) {
		const dropped = at < owner.length && drop(owner[at]!);
		if (dropped && from >= 0) kept.push(script.code.slice(from, at)), (from = -1);
		else if (!dropped && from < 0) from = at;
	}
	if (from >= 0) kept.push(script.code.slice(from));
	return page.slice(0, scriptAt) + kept.join("") + page.slice(scriptAt + script.code.length);
};
for (const source of sources) {
	if (source < 0) continue;
	const bytes = owner.filter((s) => s === source).length;
	rows.push({ name: label(mapSources[source] ?? `#${source}`), bytes, cost: pageGz - gz(htmlWithout((s) => s === source)) });
}
const unmapped = owner.filter((source) => source < 0).length;

// The style sheets: the page's style made again from them (in the order the build read them, minified by
// lightningcss as the build minifies them, but for no particular browsers), and again without each one in turn.
const styleAt = html.indexOf(">", html.indexOf("<style")) + 1;
const styleEnd = html.indexOf("</style>", styleAt);
const style = html.slice(styleAt, styleEnd);
const withStyle = (sheetsKept: typeof sheets) => {
	const css = transform({ filename: "page.css", code: Buffer.from(sheetsKept.map((sheet) => sheet.css).join("\n")), minify: true }).code.toString();
	// With its custom properties' short names, as the build gives them (web/css-variable-names.ts).
	return gz(html.slice(0, styleAt) + shortenCustomProperties(`<style>${css}</style>`).slice("<style>".length, -"</style>".length) + html.slice(styleEnd));
};
const allSheets = withStyle(sheets);
const cssRows: typeof rows = sheets.map((sheet) => ({
	name: label(sheet.id),
	bytes: transform({ filename: sheet.id, code: Buffer.from(sheet.css), minify: true }).code.length,
	cost: allSheets - withStyle(sheets.filter((other) => other !== sheet)),
}));

const pad = (value: string | number, width: number) => String(value).padStart(width);
const table = (title: string, list: typeof rows) => {
	console.log(`\n${title}\n${"module".padEnd(70)} ${pad("minified", 9)} ${pad("gzip cost", 9)}`);
	for (const row of list.sort((a, b) => b.cost - a.cost)) {
		if (showAll || row.cost >= 200) console.log(`${row.name.slice(0, 70).padEnd(70)} ${pad(row.bytes, 9)} ${pad(row.cost, 9)}`);
	}
};
table("Script modules (gzip cost: what the document's gzip -9 loses without the module's bytes)", rows);
table("Style sheets (minified alone; gzip cost: what the document loses without the sheet)", cssRows);
const packages = new Map<string, { bytes: number; cost: number }>();
for (const row of rows) {
	const key = row.name.startsWith("web/") ? (row.name.match(/^web\/src\/[^/]+\/(?:panels\/)?/)?.[0] ?? "web/src/") : row.name.replace(/ \(.*$/, "");
	const sum = packages.get(key) ?? { bytes: 0, cost: 0 };
	packages.set(key, { bytes: sum.bytes + row.bytes, cost: sum.cost + row.cost });
}
console.log(`\nBy folder or package\n${"".padEnd(70)} ${pad("minified", 9)} ${pad("gzip cost", 9)}`);
for (const [key, sum] of [...packages].sort((a, b) => b[1].cost - a[1].cost)) console.log(`${key.padEnd(70)} ${pad(sum.bytes, 9)} ${pad(sum.cost, 9)}`);
console.log(`\nThe document: ${Buffer.byteLength(html)} bytes, ${whole} gzip -9 (goal 100,000); without its script ${whole - gz(html.slice(0, inlineAt) + html.slice(inlineEnd))} less, without its style (${Buffer.byteLength(style)} bytes) ${whole - gz(html.replace(style, ""))} less; ${unmapped} script bytes map to no source (the bundler's own).`);
