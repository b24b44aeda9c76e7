/**
 * The session tree: every entry of every branch of the current session, with the active path highlighted.
 * Filters (all, no tool results, your messages, labelled) and a text search narrow it; arrows move, Left and
 * Right fold, Enter continues from the chosen entry, F2 labels it. "Continue from here" moves the conversation
 * (navigate_tree, optionally summarizing the branch left), "Fork from here" starts a new session at one of your
 * messages. Only the rows in view are rendered (tree-list.tsx), so a tree of thousands of entries stays quick.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { redact } from "../../render/redact";
import { KIND_NAMES, TREE_FILTERS, type TreeFilter, treeRows } from "../../state/tree-rows";
import type { PanelProps } from "./panel";
import { EmptyState, PanelLayout } from "./panel-layout";
import { TreeList } from "./tree-list";

export function TreePanel({ controller, done }: PanelProps) {
	const { sessionId, ready } = controller.state;
	const state = controller.tree;
	useEffect(() => {
		if (sessionId && ready) state.ensure(sessionId);
	}, [sessionId, ready, state]);
	const tree = sessionId && state.tree?.sessionId === sessionId ? state.tree : undefined;
	const [filter, setFilter] = useState<TreeFilter>("all");
	const [query, setQuery] = useState("");
	const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
	const [openTurns, setOpenTurns] = useState<ReadonlySet<string>>(new Set());
	const [selectedId, setSelectedId] = useState<string>();
	const [editing, setEditing] = useState<string>();
	const [summarize, setSummarize] = useState(false);
	const [instructions, setInstructions] = useState("");
	const [error, setError] = useState<string>();
	const treeRef = useRef<HTMLDivElement>(null);
	const version = tree?.version;
	const view = useMemo(
		() => (tree ? treeRows({ nodes: tree.nodes, order: tree.order, leafId: tree.leafId, filter, query, collapsed, openTurns }) : undefined),
		[tree, version, filter, query, collapsed, openTurns],
	);
	const total = useMemo(() => (tree ? visibleTotal(tree.nodes) : 0), [tree, version]);
	const rows = view?.rows ?? [];
	const found = selectedId === undefined ? -1 : rows.findIndex((r) => r.node.id === selectedId);
	const selected = found >= 0 ? found : Math.max(0, view?.currentIndex ?? 0);
	const row = rows[selected];
	const node = row?.node;
	const running = Boolean(controller.transcript()?.running);
	const busy = state.navigating !== undefined;
	const blocked = !ready || running || busy;

	const toggle = (set: ReadonlySet<string>, id: string) => {
		const next = new Set(set);
		if (!next.delete(id)) next.add(id);
		return next;
	};
	const focusTree = () => requestAnimationFrame(() => treeRef.current?.focus());

	const continueHere = async (id: string) => {
		if (!sessionId || blocked || id === tree?.leafId) return;
		setError(undefined);
		try {
			const result = await state.navigate(sessionId, id, summarize ? { instructions } : undefined);
			setSummarize(false);
			setInstructions("");
			setSelectedId(undefined); // the choice follows the conversation again: the current entry

			if (result.editorText !== undefined) controller.putInComposer(sessionId, result.editorText);
			done();
		} catch (failure) {
			setError((failure as Error).message);
		}
	};
	const forkHere = async (id: string) => {
		if (blocked) return;
		setError(undefined);
		if (await controller.forkAt(id)) done();
	};
	const saveLabel = async (id: string, label: string) => {
		if (!sessionId) return;
		setError(undefined);
		try {
			await state.setLabel(sessionId, id, label);
		} catch (failure) {
			setError((failure as Error).message);
		}
		setEditing(undefined);
		focusTree();
	};

	let body;
	if (!tree) {
		body = state.error ? (
			<EmptyState title="The tree could not be read">
				<span>{redact(state.error)}</span>
				<button type="button" class="small" onClick={() => sessionId && void state.load(sessionId)}>
					Try again
				</button>
			</EmptyState>
		) : (
			<p class="hint tree-loading">Reading the tree…</p>
		);
	} else if (tree.order.length === 0) {
		body = (
			<EmptyState title="Nothing recorded yet">
				<span>Every message becomes an entry of this tree: you can return to any of them and continue from there.</span>
			</EmptyState>
		);
	} else {
		body = (
			<>
				<div class="tree-tools">
					<input
						type="search"
						class="tree-search"
						aria-label="Search the tree"
						placeholder="Search entries…"
						value={query}
						onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
						onKeyDown={(e) => {
							if (e.key === "ArrowDown" || e.key === "Enter") {
								e.preventDefault();
								treeRef.current?.focus();
							}
						}}
					/>
					<div class="segmented tree-filters" role="group" aria-label="Show">
						{TREE_FILTERS.map((f) => (
							<button key={f.id} type="button" title={f.title} aria-pressed={filter === f.id} onClick={() => setFilter(f.id)}>
								{f.label}
							</button>
						))}
					</div>
					<p class="hint tree-count" aria-live="polite">
						{query.trim() || filter !== "all" ? `${view!.shown.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} entries` : `${total.toLocaleString("en-US")} entries`}
					</p>
				</div>
				{rows.length === 0 ? (
					<EmptyState title={filter === "labelled" && !query.trim() ? "No labelled entries" : "No entries match"}>
						<span>{filter === "labelled" && !query.trim() ? "Choose an entry and press Label (or F2) to bookmark it." : "Try another word or filter."}</span>
					</EmptyState>
				) : (
					<TreeList
						treeRef={treeRef}
						rows={rows}
						selected={selected}
						currentIndex={view!.currentIndex}
						sessionKey={tree.sessionId}
						leafId={tree.leafId}
						query={query}
						editing={editing}
						onSelect={(index) => setSelectedId(rows[index]?.node.id)}
						onToggleBranches={(index) => setCollapsed((set) => toggle(set, rows[index]!.node.id))}
						onToggleTools={(index) => setOpenTurns((set) => toggle(set, rows[index]!.node.id))}
						onActivate={(index) => void continueHere(rows[index]!.node.id)}
						onEditLabel={(index) => !blocked && setEditing(rows[index]!.node.id)}
						onSaveLabel={(id, label) => void saveLabel(id, label)}
						onCancelLabel={() => {
							setEditing(undefined);
							focusTree();
						}}
					/>
				)}
				{node && (
					<div class="tree-actions" aria-label="Chosen entry">
						<p class="tree-chosen">
							<span class="kind">{node.kind === "toolResult" ? (node.toolName ?? KIND_NAMES.toolResult) : KIND_NAMES[node.kind]}</span>
							<span class="preview">{redact(node.preview) || "(empty)"}</span>
							{node.label && <span class="tag tree-chosen-label">{redact(node.label)}</span>}
						</p>
						<label class="check">
							<input type="checkbox" checked={summarize} disabled={blocked} onChange={(e) => setSummarize((e.target as HTMLInputElement).checked)} />
							<span>Summarize the branch I leave</span>
						</label>
						{summarize && (
							<input
								type="text"
								class="summary-focus"
								aria-label="What the summary should focus on"
								placeholder="Focus of the summary (optional)"
								value={instructions}
								onInput={(e) => setInstructions((e.target as HTMLInputElement).value)}
							/>
						)}
						<div class="tree-buttons">
							<button type="button" class="primary small" disabled={blocked || node.id === tree.leafId} onClick={() => void continueHere(node.id)}>
								Continue from here
							</button>
							<button type="button" class="small" disabled={blocked || node.kind !== "user"} title={node.kind === "user" ? undefined : "A fork starts at one of your messages"} onClick={() => void forkHere(node.id)}>
								Fork from here
							</button>
							<button type="button" class="small" disabled={blocked} onClick={() => setEditing(node.id)}>
								Label
							</button>
						</div>
						{state.navigating === "summarizing" ? (
							<p class="hint tree-status" role="status">
								Summarizing the branch you leave…{" "}
								<button type="button" class="link" onClick={() => sessionId && void state.stopSummary(sessionId)}>
									Stop
								</button>
							</p>
						) : running ? (
							<p class="hint tree-status" role="status">
								The agent is working. Moving, forking and labelling wait until the run ends (or you stop it).
							</p>
						) : node.id === tree.leafId ? (
							<p class="hint tree-status">The conversation continues from this entry now.</p>
						) : node.kind !== "user" ? (
							<p class="hint tree-status">A fork starts at one of your messages; continuing works from any entry.</p>
						) : null}
						{error && (
							<p class="error-text" role="alert">
								{redact(error)}
							</p>
						)}
					</div>
				)}
			</>
		);
	}
	return <PanelLayout title="Session tree">{body}</PanelLayout>;
}

/** Entries a person can see (label entries show as labels on their targets). */
function visibleTotal(nodes: ReadonlyMap<string, { kind: string }>): number {
	let count = 0;
	for (const node of nodes.values()) if (node.kind !== "label") count++;
	return count;
}
