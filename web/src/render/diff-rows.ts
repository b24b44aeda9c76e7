/**
 * Diff text as rows to show: unified diffs (git's, jsdiff's: `@@ -a,b +c,d @@` hunks) and pi's edit diff
 * (`+12 text`, `-12 text`, ` 12 text`, `   ...`: the line number after the sign, the old one on context lines).
 * The text is redacted whole before it is split, so a secret across lines (a PEM key) never shows in part.
 */
import { redact } from "./redact.js";

/** `+` added, `-` removed, ` ` context, `@` a hunk's header or lines left out. `o`/`n`: old and new line numbers. */
export interface DiffRow {
	k: "+" | "-" | " " | "@";
	o?: number;
	n?: number;
	t: string;
}

export function parseDiff(diff: string): DiffRow[] {
	const lines = redact(diff).split("\n");
	return lines.some((line) => line.startsWith("@@ ")) ? unified(lines) : piDiff(lines);
}

function unified(lines: string[]): DiffRow[] {
	const rows: DiffRow[] = [];
	let o = 0;
	let n = 0;
	let inHunk = false;
	for (const line of lines) {
		const head = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(line);
		if (head) {
			o = Number(head[1]);
			n = Number(head[2]);
			inHunk = true;
			rows.push({ k: "@", t: line });
		} else if (!inHunk) continue; // the file's header lines
		else if (line[0] === "+") rows.push({ k: "+", n: n++, t: line.slice(1) });
		else if (line[0] === "-") rows.push({ k: "-", o: o++, t: line.slice(1) });
		else if (line[0] === " ") rows.push({ k: " ", o: o++, n: n++, t: line.slice(1) });
	}
	return rows;
}

function piDiff(lines: string[]): DiffRow[] {
	const rows: DiffRow[] = [];
	let shift = 0; // lines added minus removed so far: a context line's new number is its old one plus this
	for (const line of lines) {
		const m = /^([+ -]) *(\d*) ?/.exec(line);
		if (!m) continue;
		const num = Number(m[2]);
		const t = line.slice(m[0].length);
		if (!m[2]) rows.push({ k: "@", t: "⋯" });
		else if (m[1] === "+") (shift++, rows.push({ k: "+", n: num, t }));
		else if (m[1] === "-") (shift--, rows.push({ k: "-", o: num, t }));
		else rows.push({ k: " ", o: num, n: num + shift, t });
	}
	return rows;
}

/** A new file's content as added rows. */
export function addedRows(text: string): DiffRow[] {
	const lines = redact(text).split("\n");
	if (lines.at(-1) === "") lines.pop();
	return lines.map((t, i) => ({ k: "+", n: i + 1, t }));
}

/** The language highlight.ts is given for a path (none for prose). */
export function languageOf(path: string): string {
	const ext = /\.([\w-]+)$/.exec(path)?.[1]?.toLowerCase() ?? "";
	return ext === "md" || ext === "txt" ? "" : ext;
}
