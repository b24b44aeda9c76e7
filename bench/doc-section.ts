/** Replaces the text between `<!-- bench:<name>:start -->` and `<!-- bench:<name>:end -->` in docs/benchmarks.md. */
import { readFileSync, writeFileSync } from "node:fs";

export function writeBenchSection(name: string, table: string): void {
	const path = new URL("../docs/benchmarks.md", import.meta.url);
	const doc = readFileSync(path, "utf8");
	const start = `<!-- bench:${name}:start -->`;
	const end = `<!-- bench:${name}:end -->`;
	const i = doc.indexOf(start);
	const j = doc.indexOf(end);
	if (i < 0 || j < i) throw new Error(`docs/benchmarks.md lacks the bench:${name} markers`);
	writeFileSync(path, `${doc.slice(0, i + start.length)}\n${table}\n${doc.slice(j)}`);
	console.log(`docs/benchmarks.md: ${name} section updated`);
}

/**
 * Appends `row` to the table between `<!-- bench:<name>:start -->` and `<!-- bench:<name>:end -->` in
 * docs/benchmarks.md (starting it with `header` when the section is empty), so earlier rows stay: a record.
 */
export function appendBenchRow(name: string, header: string, row: string): void {
	const path = new URL("../docs/benchmarks.md", import.meta.url);
	const doc = readFileSync(path, "utf8");
	const start = `<!-- bench:${name}:start -->`;
	const end = `<!-- bench:${name}:end -->`;
	const i = doc.indexOf(start);
	const j = doc.indexOf(end);
	if (i < 0 || j < i) throw new Error(`docs/benchmarks.md lacks the bench:${name} markers`);
	const rows = doc.slice(i + start.length, j).trim();
	writeFileSync(path, `${doc.slice(0, i + start.length)}\n${rows || header}\n${row}\n${doc.slice(j)}`);
	console.log(`docs/benchmarks.md: a row added to the ${name} record`);
}
