/**
 * The rows of the session tree as an ARIA tree that renders only what is in view (rows have one fixed height,
 * `--tree-row` in tree.css), so thousands of entries cost no more than a screenful. The tree element keeps the
 * focus and points at the chosen row with aria-activedescendant; each row says its level, its place among its
 * siblings and whether it is folded, so assistive technology sees the whole tree although few rows exist.
 *
 * Keys: Up/Down (Home/End, PageUp/PageDown) choose; Right unfolds, then goes to the first child; Left folds,
 * then goes to the parent; Enter continues from the row; F2 edits its label (Enter saves, Esc gives up).
 */
import type { RefObject } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { TreeNode } from "../../../../src/client/index.js";
import { redact } from "../../render/redact";
import { KIND_NAMES, type TreeRow } from "../../state/tree-rows";

/** Rows rendered beyond each edge of the view, so a quick scroll shows no blank. */
const OVERSCAN_ROWS = 8;
/** Row height when the stylesheet cannot be read (it sets `--tree-row`). */
const FALLBACK_ROW_PX = 34;
/** Indentation per level, in pixels, and the deepest level indented (deeper branches line up with it). */
const INDENT_PX = 14;
const MAX_INDENT_LEVELS = 8;

export interface TreeListProps {
	treeRef: RefObject<HTMLDivElement | null>;
	rows: TreeRow[];
	selected: number;
	currentIndex: number;
	/** Changes when another session's tree is shown (the view then starts at the active entry again). */
	sessionKey: string;
	/** The current entry's id: when it changes, its row is brought into view. */
	leafId: string | null | undefined;
	query: string;
	/** The entry whose label is being edited. */
	editing: string | undefined;
	onSelect(index: number): void;
	onToggleBranches(index: number): void;
	onToggleTools(index: number): void;
	onActivate(index: number): void;
	onEditLabel(index: number): void;
	onSaveLabel(entryId: string, label: string): void;
	onCancelLabel(): void;
}

export function TreeList(props: TreeListProps) {
	const { rows, selected, treeRef } = props;
	const [viewport, setViewport] = useState({ top: 0, height: 400, row: FALLBACK_ROW_PX });
	const shownSession = useRef<string | undefined>(undefined);

	useLayoutEffect(() => {
		const element = treeRef.current;
		if (!element) return;
		const measure = () => {
			const row = Number.parseFloat(getComputedStyle(element).getPropertyValue("--tree-row")) || FALLBACK_ROW_PX;
			setViewport({ top: element.scrollTop, height: element.clientHeight, row });
		};
		measure();
		const observer = new ResizeObserver(measure);
		observer.observe(element);
		return () => observer.disconnect();
	}, [treeRef]);

	// A newly shown tree opens at the active entry, in the middle of the view.
	useLayoutEffect(() => {
		const element = treeRef.current;
		if (!element || shownSession.current === props.sessionKey) return;
		shownSession.current = props.sessionKey;
		const at = Math.max(0, props.currentIndex);
		element.scrollTop = Math.max(0, at * viewport.row - element.clientHeight / 2);
		setViewport((v) => ({ ...v, top: element.scrollTop }));
	}, [props.sessionKey, props.currentIndex, viewport.row]);

	// The chosen row stays in view.
	useLayoutEffect(() => showRow(treeRef.current, selected, viewport.row), [selected, viewport.row]);
	// So does the current entry when the conversation moves (a message sent on a new branch reorders the rows).
	useLayoutEffect(() => showRow(treeRef.current, props.currentIndex, viewport.row), [props.leafId, viewport.row]);

	const first = Math.max(0, Math.floor(viewport.top / viewport.row) - OVERSCAN_ROWS);
	const last = Math.min(rows.length, Math.ceil((viewport.top + viewport.height) / viewport.row) + OVERSCAN_ROWS);
	const pageRows = Math.max(1, Math.floor(viewport.height / viewport.row) - 1);
	const words = props.query.toLowerCase().split(/\s+/).filter(Boolean);

	const onKeyDown = (event: KeyboardEvent) => {
		if (props.editing || event.altKey || event.ctrlKey || event.metaKey) return;
		const row = rows[selected];
		const move = (to: number) => props.onSelect(Math.min(rows.length - 1, Math.max(0, to)));
		switch (event.key) {
			case "ArrowDown":
				move(selected + 1);
				break;
			case "ArrowUp":
				move(selected - 1);
				break;
			case "Home":
				move(0);
				break;
			case "End":
				move(rows.length - 1);
				break;
			case "PageDown":
				move(selected + pageRows);
				break;
			case "PageUp":
				move(selected - pageRows);
				break;
			case "ArrowRight":
				if (!row) return;
				if (row.sideBranches > 0 && !row.expanded) props.onToggleBranches(selected);
				else if (row.toolResults > 0 && !row.toolsOpen) props.onToggleTools(selected);
				else if (rows[selected + 1]?.parent === selected) move(selected + 1);
				break;
			case "ArrowLeft":
				if (!row) return;
				if (row.toolsOpen) props.onToggleTools(selected);
				else if (row.sideBranches > 0 && row.expanded) props.onToggleBranches(selected);
				else if (row.parent >= 0) move(row.parent);
				break;
			case "Enter":
				props.onActivate(selected);
				break;
			case "F2":
				props.onEditLabel(selected);
				break;
			default:
				return;
		}
		event.preventDefault();
	};

	const items = [];
	for (let i = first; i < last; i++) {
		const row = rows[i]!;
		items.push(
			<Row
				key={row.node.id}
				row={row}
				index={i}
				top={i * viewport.row}
				height={viewport.row}
				selected={i === selected}
				words={words}
				editing={props.editing === row.node.id}
				onClick={() => {
					props.onSelect(i);
					treeRef.current?.focus();
				}}
				onToggle={() => (row.sideBranches > 0 ? props.onToggleBranches(i) : props.onToggleTools(i))}
				onToggleTools={() => props.onToggleTools(i)}
				onSave={(label) => props.onSaveLabel(row.node.id, label)}
				onCancel={props.onCancelLabel}
			/>,
		);
	}
	return (
		<div
			ref={treeRef}
			class="tree-view"
			role="tree"
			tabIndex={0}
			aria-label="Conversation tree"
			aria-activedescendant={rows[selected] ? rowId(rows[selected]!.node) : undefined}
			onKeyDown={onKeyDown}
			onScroll={(e) => {
				const top = (e.currentTarget as HTMLElement).scrollTop;
				setViewport((v) => (v.top === top ? v : { ...v, top }));
			}}
		>
			<div class="tree-space" style={{ height: `${rows.length * viewport.row}px` }}>
				{items}
			</div>
		</div>
	);
}

/** Scrolls the tree just enough to show row `index` (rows are `row` pixels high). */
function showRow(element: HTMLElement | null, index: number, row: number): void {
	if (!element || index < 0) return;
	const top = index * row;
	if (top < element.scrollTop) element.scrollTop = top;
	else if (top + row > element.scrollTop + element.clientHeight) element.scrollTop = top + row - element.clientHeight;
}

/** The DOM id of a row (aria-activedescendant points at it). */
export function rowId(node: TreeNode): string {
	return `tree-item-${node.id.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}

interface RowProps {
	row: TreeRow;
	index: number;
	top: number;
	height: number;
	selected: boolean;
	words: string[];
	editing: boolean;
	onClick(): void;
	onToggle(): void;
	onToggleTools(): void;
	onSave(label: string): void;
	onCancel(): void;
}

function Row({ row, top, height, selected, words, editing, onClick, onToggle, onToggleTools, onSave, onCancel }: RowProps) {
	const { node } = row;
	const kind = node.kind === "toolResult" ? (node.toolName ?? KIND_NAMES.toolResult) : KIND_NAMES[node.kind];
	const classes = ["tree-row", `kind-${node.kind}`, row.onPath && "on-path", row.current && "current", selected && "selected", node.isError && "failed", node.stopReason && "stopped"]
		.filter(Boolean)
		.join(" ");
	const time = new Date(node.timestamp);
	return (
		<div
			id={rowId(node)}
			class={classes}
			role="treeitem"
			aria-level={row.depth + 1}
			aria-setsize={row.setSize}
			aria-posinset={row.posInSet}
			aria-expanded={row.expanded}
			aria-selected={selected}
			aria-current={row.current ? "location" : undefined}
			// A row is one line: its whole kind, preview and label are in the tooltip (the chosen entry shows them too).
			title={[`${kind}: ${redact(node.preview)}`, node.label && `Label: ${redact(node.label)}`, Number.isNaN(time.getTime()) ? "" : time.toLocaleString()].filter(Boolean).join("\n")}
			style={{ top: `${top}px`, height: `${height}px`, paddingLeft: `calc(var(--space-2) + ${Math.min(row.depth, MAX_INDENT_LEVELS) * INDENT_PX}px)` }}
			onClick={onClick}
		>
			<span
				class={`twisty${row.expanded === undefined ? (row.branchStart ? " none branch" : " none") : row.expanded ? " open" : ""}`}
				aria-hidden="true"
				onClick={(e) => {
					if (row.expanded === undefined) return;
					e.stopPropagation();
					onToggle();
				}}
			/>
			<span class="kind">{kind}</span>
			{editing ? (
				<LabelEditor initial={node.label ?? ""} onSave={onSave} onCancel={onCancel} />
			) : (
				<span class="preview">{highlight(redact(node.preview) || "(empty)", words)}</span>
			)}
			{!editing && node.label && <span class="tag tree-label">{redact(node.label)}</span>}
			{row.toolResults > 0 && row.sideBranches > 0 && (
				<span
					class="chip"
					aria-hidden="true"
					onClick={(e) => {
						e.stopPropagation();
						onToggleTools();
					}}
				>
					{row.toolResults} {row.toolResults === 1 ? "tool" : "tools"}
				</span>
			)}
			{row.toolResults > 0 && row.sideBranches === 0 && !row.toolsOpen && <span class="chip" aria-hidden="true">{row.toolResults} {row.toolResults === 1 ? "tool" : "tools"}</span>}
			{row.sideBranches > 0 && !row.expanded && <span class="chip" aria-hidden="true">+{row.sideBranches}</span>}
			{row.current && <span class="tag now">now</span>}
		</div>
	);
}

function LabelEditor({ initial, onSave, onCancel }: { initial: string; onSave(label: string): void; onCancel(): void }) {
	const input = useRef<HTMLInputElement>(null);
	useLayoutEffect(() => {
		input.current?.focus();
		input.current?.select();
	}, []);
	return (
		<input
			ref={input}
			class="label-input"
			type="text"
			maxLength={200}
			aria-label="Label (empty: remove it)"
			placeholder="Label (empty: none)"
			defaultValue={initial}
			onClick={(e) => e.stopPropagation()}
			onKeyDown={(e) => {
				e.stopPropagation();
				if (e.key === "Enter") {
					e.preventDefault();
					onSave((e.target as HTMLInputElement).value);
				} else if (e.key === "Escape") {
					e.preventDefault();
					onCancel();
				}
			}}
			onBlur={onCancel}
		/>
	);
}

/** The text with every occurrence of the search words marked. */
function highlight(text: string, words: string[]) {
	if (words.length === 0) return text;
	const pattern = new RegExp(`(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})`, "gi");
	return text.split(pattern).map((part, i) => (i % 2 === 1 ? <mark key={i}>{part}</mark> : part));
}
