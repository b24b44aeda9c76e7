/** Replaces the text between `<!-- stress:results:start -->` and `<!-- stress:results:end -->` in docs/reliability.md. */
import { readFileSync, writeFileSync } from "node:fs";

const START = "<!-- stress:results:start -->";
const END = "<!-- stress:results:end -->";

export function writeReliabilitySection(text: string): void {
	const path = new URL("../docs/reliability.md", import.meta.url);
	const doc = readFileSync(path, "utf8");
	const i = doc.indexOf(START);
	const j = doc.indexOf(END);
	if (i < 0 || j < i) throw new Error("docs/reliability.md lacks the stress:results markers");
	writeFileSync(path, `${doc.slice(0, i + START.length)}\n${text}\n${doc.slice(j)}`);
	console.log("docs/reliability.md: results updated");
}
