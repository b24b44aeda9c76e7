/** The local backend's `memory` tool: learn, recall, list and forget notes that outlive sessions. */
import { Type } from "typebox";
import { boundText, defineFeatureTool } from "../../agent/feature-tool.js";
import { redactSecrets } from "../../shared/redact.js";
import type { LocalMemoryStore, MemoryEntry } from "./local-store.js";

/** Preview lengths in tool output; cut on character boundaries with an ellipsis. */
const RECALL_PREVIEW_CHARS = 2000;
const LIST_PREVIEW_CHARS = 160;

const parameters = Type.Object({
	op: Type.Union([Type.Literal("learn"), Type.Literal("recall"), Type.Literal("list"), Type.Literal("forget")], {
		description: "Memory action to perform",
	}),
	content: Type.Optional(Type.String({ description: "Entry content (required for learn; at most 1 MiB)" })),
	tags: Type.Optional(Type.Array(Type.String(), { description: "Optional tags (learn; at most 20 kept)" })),
	query: Type.Optional(Type.String({ description: "Search query (required for recall)" })),
	limit: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: "Max results (recall; default 10, max 50)" })),
	tag: Type.Optional(Type.String({ description: "Exact tag filter (list)" })),
	id: Type.Optional(Type.String({ description: "Entry id to remove (required for forget)" })),
});

export function createLocalMemoryTool(store: () => LocalMemoryStore, session: () => string) {
	return defineFeatureTool({
		name: "memory",
		label: "Memory",
		description:
			"Persistent memory for this project: learn, recall, list and forget note-style entries that survive across " +
			"sessions. learn stores an entry (optionally tagged); recall searches content and tags, best matches first; " +
			"list shows entries, optionally with one tag; forget removes an entry by id. Output is bounded to 32 KiB.",
		parameters,
		async execute(params, signal) {
			signal?.throwIfAborted();
			const target = store();
			switch (params.op) {
				case "learn": {
					const { entry, total } = await target.learn(params.content ?? "", params.tags ?? [], session());
					return `Learned memory entry ${entry.id} (${total} stored).`;
				}
				case "recall": {
					const entries = await target.recall(params.query ?? "", params.limit);
					if (entries.length === 0) return `No memory entries match ${JSON.stringify(params.query?.trim())}.`;
					return boundText(redactSecrets(entries.map((e) => `${header(e)}\n${preview(e.content, RECALL_PREVIEW_CHARS)}`).join("\n\n")));
				}
				case "list": {
					const entries = await target.list(params.tag);
					if (entries.length === 0) return "No memory entries.";
					return boundText(redactSecrets(entries.map((e) => `${header(e)}\n${preview(e.content.split("\n")[0] ?? "", LIST_PREVIEW_CHARS)}`).join("\n")));
				}
				case "forget": {
					const id = params.id ?? "";
					return (await target.forget(id)) ? `Forgot memory entry ${id}.` : `No memory entry with id ${id}.`;
				}
			}
		},
	});
}

function header(entry: MemoryEntry): string {
	const when = Number.isFinite(entry.ts) && entry.ts > 0 ? new Date(entry.ts).toISOString().replace(/\.\d{3}Z$/, "Z") : "?";
	const tags = entry.tags.length ? ` · tags: ${entry.tags.join(", ")}` : "";
	return `${entry.id} · ${when} · session ${entry.session || "?"}${tags}`;
}

function preview(text: string, maxChars: number): string {
	const chars = [...text];
	return chars.length <= maxChars ? text : `${chars.slice(0, maxChars).join("")}…`;
}
