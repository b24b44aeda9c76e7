/**
 * How much image data a message takes onto the wire. With uploads a user message carries up to eight 5 MiB
 * images, 53 MiB of base64, which the session file keeps whole and the model gets whole (and pi's read tool
 * answers an image file with the image); but a client's queue holds 16 MiB (MAX_CLIENT_QUEUE_BYTES) and a
 * session's replay window 8 MiB, so sent whole to the page such a message would cut its client off. On the wire,
 * images of user messages and tool results past a budget go without their data, with `omittedBytes` (their
 * size) instead: `message_start` of a user message carries none (its `message_end` follows at once), nor does
 * `tool_execution_end` (its tool result's `message_end` follows), `message_end` the first ones up to
 * MAX_EVENT_IMAGE_CHARS, and a transcript (get_messages, a session's snapshot) up to MAX_SNAPSHOT_IMAGE_CHARS,
 * newest messages first. A client gets a left-out image with `get_image` (its entry id and index,
 * commands/images.ts), one per command: the page does so for each tile as it scrolls into view.
 */
/** Base64 characters of images one event may carry: one image of 5 MiB (6.7 MiB of base64) fits. */
export const MAX_EVENT_IMAGE_CHARS = 7 * 1024 * 1024;
/** Base64 characters of images one transcript may carry, newest messages first. */
export const MAX_SNAPSHOT_IMAGE_CHARS = 8 * 1024 * 1024;

type Block = { type?: unknown; data?: unknown; mimeType?: unknown };

/** `message` with the images its share of `budget` (characters left, updated) cannot hold left without data. */
function bounded<T>(message: T, budget: { left: number }): T {
	const { role } = message as { role?: unknown };
	return role === "user" || role === "toolResult" ? withContent(message, budget) : message;
}

/** `holder` (a message, a tool's result) with its content's images bounded by `budget`. */
function withContent<T>(holder: T, budget: { left: number }): T {
	const { content } = (holder ?? {}) as { content?: unknown };
	if (!Array.isArray(content) || !content.some((block: Block) => block?.type === "image")) return holder;
	let changed = false;
	const kept = content.map((block: Block) => {
		if (block?.type !== "image" || typeof block.data !== "string") return block;
		if (block.data.length <= budget.left) {
			budget.left -= block.data.length;
			return block;
		}
		changed = true;
		const padding = block.data.endsWith("==") ? 2 : block.data.endsWith("=") ? 1 : 0;
		return { type: "image", mimeType: block.mimeType, data: "", omittedBytes: (block.data.length / 4) * 3 - padding };
	});
	return changed ? ({ ...holder, content: kept } as T) : holder;
}

/** A message as an event carries it (a user message's `message_start`: no image data; `message_end`: up to MAX_EVENT_IMAGE_CHARS). */
export function eventMessage<T>(message: T, start: boolean): T {
	return bounded(message, { left: start ? 0 : MAX_EVENT_IMAGE_CHARS });
}

/** A tool's result as `tool_execution_end` carries it: no image data (the tool result's `message_end` has it). */
export function eventToolResult<T>(result: T): T {
	return withContent(result, { left: 0 });
}

/** A transcript as it is sent: images up to MAX_SNAPSHOT_IMAGE_CHARS in all, the newest messages' first. */
export function transcriptMessages<T>(messages: readonly T[]): T[] {
	const budget = { left: MAX_SNAPSHOT_IMAGE_CHARS };
	const sent = [...messages];
	for (let n = sent.length - 1; n >= 0; n--) sent[n] = bounded(sent[n]!, budget);
	return sent;
}
