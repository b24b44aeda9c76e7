/**
 * The snapshot a guest gets on joining (and after the transcript changed other than by appending): the
 * session's transcript as guests see it, at the event seq it matches, cut from the oldest end so that it
 * fits in one frame.
 */
import type { CollabSnapshot } from "../shared/collab-wire.js";
import type { PublicView } from "./public-view.js";

/** What the relay reads from the session (get_state and get_messages). */
export interface SessionReading {
	sessionId: string;
	state: Record<string, unknown>;
	messages: unknown[];
	streaming?: unknown;
	seq: number;
}

const bytesOf = (text: string) => Buffer.byteLength(text, "utf8");

/** The snapshot's JSON text, at most `maxBytes` bytes of UTF-8. */
export function snapshotText(view: PublicView, reading: SessionReading, maxBytes: number): string {
	const messages = reading.messages.map((m) => view.message(m)).filter((m) => m !== undefined);
	let streaming = reading.streaming === undefined ? undefined : view.message(reading.streaming);
	const snapshot = (kept: unknown[], omitted: number): CollabSnapshot => {
		const value: CollabSnapshot = {
			type: "collab_snapshot",
			sessionId: reading.sessionId,
			seq: reading.seq,
			session: view.session(reading.state),
			messages: kept,
			omittedMessages: omitted,
		};
		if (streaming !== undefined) value.streaming = streaming;
		return value;
	};
	// The frame around the messages, with room for the largest count of omitted messages.
	let budget = maxBytes - bytesOf(JSON.stringify(snapshot([], messages.length)));
	if (budget < 0 && streaming !== undefined) {
		streaming = undefined;
		budget = maxBytes - bytesOf(JSON.stringify(snapshot([], messages.length)));
	}
	let first = messages.length;
	while (first > 0) {
		const size = bytesOf(JSON.stringify(messages[first - 1])) + 1; // and its comma
		if (size > budget) break;
		budget -= size;
		first--;
	}
	return JSON.stringify(snapshot(messages.slice(first), first));
}
