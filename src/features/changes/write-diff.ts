/**
 * A `write` card's diff: pi's write tool answers only "wrote N bytes", and the page cannot know what the file
 * held before. So before each `write` inside the working directory (in git or not) the file's text is read,
 * and once the call succeeded its diff against what was written is added to the tool result's `details`
 * (`diff`, the key pi's own edit tool uses), where the page finds it, live and in the session file alike.
 * Bounded: a file over MAX_KEPT_BYTES (or binary, or not UTF-8) gives `diffOmitted` with the reason instead,
 * and a diff over MAX_WRITE_DIFF_BYTES is cut at a line's end (`diffTruncated`).
 */
import { recordedDiff, readText } from "./recorded-changes.js";
import type { ToolCallEnd, ToolCallStart } from "../../agent/types.js";
import { leadsInside, toolCallPath } from "./paths.js";

/** A write's diff kept in its result is cut at this many bytes (it is recorded in the session file). */
export const MAX_WRITE_DIFF_BYTES = 64 * 1024;
/** Writes whose result has not come yet, kept at most (an aborted run's writes never answer). */
const MAX_PENDING_WRITES = 32;

type Before = { text?: string | null; why?: string };

/** What a write's result gains: its diff, that it made a new file, or why there is no diff. */
export type WriteDetails = { diff: string; diffTruncated?: true } | { created: true } | { diffOmitted: string };

export class WriteDiffs {
	/** What each pending write's file held, by tool call id (read while the call waits to run). */
	private readonly pending = new Map<string, Promise<Before & { path: string }>>();

	constructor(private readonly cwd: () => string) {}

	/** Before a `write`: starts reading what its file holds now (the call waits for it, within its time). */
	before(call: ToolCallStart): Promise<unknown> | undefined {
		if (call.toolName !== "write") return undefined;
		const target = toolCallPath(this.cwd(), call.input);
		if (!target) return undefined;
		if (this.pending.size >= MAX_PENDING_WRITES) this.pending.delete(this.pending.keys().next().value!);
		const read = leadsInside(this.cwd(), target.path)
			.then((inside) => (inside ? readText(target.absolute) : { why: "outside the working directory (through a linked folder), so it was not read" }))
			.then(
				(before) => ({ ...before, path: target.path }),
				() => ({ why: "it could not be read", path: target.path }),
			);
		this.pending.set(call.toolCallId, read);
		return read;
	}

	/** After a `write`: its diff, when it succeeded and its file was read before. */
	async after(call: ToolCallEnd): Promise<WriteDetails | undefined> {
		const read = this.pending.get(call.toolCallId);
		if (!read) return undefined;
		this.pending.delete(call.toolCallId);
		const before = await read;
		if (call.isError || typeof call.input.content !== "string") return undefined;
		if (before.text === null) return { created: true };
		if (before.text === undefined) return { diffOmitted: `the file before was ${before.why}` };
		const { diff, note } = recordedDiff(before.path, { path: before.path, content: before.text, token: "" }, { token: "", text: call.input.content });
		if (note) return { diffOmitted: note };
		return cutDiff(diff);
	}
}

/** A diff cut at MAX_WRITE_DIFF_BYTES, at a line's end. */
export function cutDiff(diff: string): WriteDetails {
	if (Buffer.byteLength(diff) <= MAX_WRITE_DIFF_BYTES) return { diff };
	const cut = Buffer.from(diff).subarray(0, MAX_WRITE_DIFF_BYTES).toString("utf8");
	return { diff: cut.slice(0, cut.lastIndexOf("\n") + 1), diffTruncated: true };
}
