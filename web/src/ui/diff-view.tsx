/**
 * One diff view for the tool cards and the Changes panel: rows from render/diff-rows.ts, added and removed
 * lines coloured, both line numbers, each line highlighted for its file's language; folded past `limit` rows
 * with a count; side by side (`split`) where there is room. With `onPick`, each row's line numbers are a button
 * to comment on it (Shift extends the selection to a range); `picked` rows are marked, `marked` ones have a comment.
 */
import { useState } from "preact/hooks";
import { highlight } from "../render/highlight";
import type { DiffRow } from "../render/diff-rows";
import "../styles/diff.css";

const KIND = { "+": "a", "-": "r", " ": "c", "@": "h" } as const;

export interface DiffViewProps {
	rows: DiffRow[];
	lang: string;
	limit?: number;
	split?: boolean;
	onPick?(index: number, extend: boolean): void;
	picked?: readonly [number, number];
	marked?: ReadonlySet<number>;
}

export function DiffView(props: DiffViewProps) {
	const { rows, lang, limit, split } = props;
	const [all, setAll] = useState(false);
	const shown = limit && !all && rows.length > limit ? limit : rows.length;
	const cells = (row: DiffRow | undefined, i: number, side?: "o" | "n") => {
		if (!row) return [<span class="ln" />, <span class="dt" />];
		const nums = side ? [row[side]] : [row.o, row.n];
		const kind = KIND[row.k];
		const picked = props.picked && i >= props.picked[0] && i <= props.picked[1];
		const cls = `${kind}${picked ? " pk" : ""}${props.marked?.has(i) ? " mk" : ""}`;
		const gutter = nums.map((num) => <span class={`ln ${cls}`}>{num}</span>);
		const line = row.n ?? row.o;
		return [
			props.onPick && row.k !== "@" ? (
				<button type="button" class={`dg ${cls}`} aria-pressed={picked ? "true" : "false"} aria-label={`Comment on ${row.k === "-" ? "removed " : ""}line ${line}`} onClick={(e) => props.onPick!(i, e.shiftKey)}>
					{gutter}
				</button>
			) : (
				gutter
			),
			<span class={`dt ${cls}`}>
				<i>{row.k === "@" ? "" : row.k}</i>
				{row.k === "@" || !lang ? row.t : highlight(row.t, lang).map((t) => (t.kind === "plain" ? t.text : <span class={`tok-${t.kind}`}>{t.text}</span>))}
			</span>,
		];
	};
	const body = [];
	if (split) {
		for (let i = 0; i < shown; ) {
			const row = rows[i]!;
			if (row.k === "@" || row.k === " ") {
				body.push(row.k === "@" ? <div class="dh">{row.t}</div> : [...cells(row, i, "o"), ...cells(row, i, "n")]);
				i++;
				continue;
			}
			// A run of removed lines beside the added lines that replace them.
			let end = i;
			while (end < shown && rows[end]!.k === "-") end++;
			let last = end;
			while (last < shown && rows[last]!.k === "+") last++;
			for (let j = 0; j < Math.max(end - i, last - end); j++) body.push([...cells(rows[i + j < end ? i + j : -1], i + j, "o"), ...cells(rows[end + j < last ? end + j : -1], end + j, "n")]);
			i = last;
		}
	} else for (let i = 0; i < shown; i++) body.push(rows[i]!.k === "@" ? <div class="dh">{rows[i]!.t}</div> : cells(rows[i], i));
	return (
		<div class="diff">
			<div class={`dv${split ? " split" : ""}${props.onPick ? " pick" : ""}`}>{body}</div>
			{shown < rows.length && (
				<button type="button" class="link more" onClick={() => setAll(true)}>
					Show {rows.length - shown} more line{rows.length - shown === 1 ? "" : "s"}
				</button>
			)}
		</div>
	);
}
