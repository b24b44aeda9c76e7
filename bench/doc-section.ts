/** Writes between `<!-- bench:<name>:start -->` and `<!-- bench:<name>:end -->` in docs/benchmarks.md. */
import { readFileSync, writeFileSync } from "node:fs";

const DOC = new URL("../docs/benchmarks.md", import.meta.url);

/** The page, and the section's text with what stands before and after it. */
function section(name: string): { before: string; inside: string; after: string } {
	const doc = readFileSync(DOC, "utf8");
	const start = `<!-- bench:${name}:start -->`;
	const end = `<!-- bench:${name}:end -->`;
	const i = doc.indexOf(start);
	const j = doc.indexOf(end);
	if (i < 0 || j < i) throw new Error(`docs/benchmarks.md lacks the bench:${name} markers`);
	return { before: doc.slice(0, i + start.length), inside: doc.slice(i + start.length, j), after: doc.slice(j) };
}

/** Replaces the section's text with `table`. */
export function writeBenchSection(name: string, table: string): void {
	const { before, after } = section(name);
	writeFileSync(DOC, `${before}\n${table}\n${after}`);
	console.log(`docs/benchmarks.md: ${name} section updated`);
}

/**
 * Appends `row` to the section's table (starting it with `header` when the section is empty), so earlier rows
 * stay: a record.
 */
export function appendBenchRow(name: string, header: string, row: string): void {
	const { before, inside, after } = section(name);
	writeFileSync(DOC, `${before}\n${inside.trim() || header}\n${row}\n${after}`);
	console.log(`docs/benchmarks.md: a row added to the ${name} record`);
}
