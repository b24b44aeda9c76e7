/**
 * The transcript: renders the newest messages first and more on demand, so a 10,000-message session opens
 * at once; keeps the view pinned to the bottom while the user is there.
 */
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { Message } from "../../../src/client/index";
import type { Transcript } from "../state/transcript";
import { MessageView } from "./message-view";

/** Messages rendered at first, and added each time the user nears the top (small batches keep frames short). */
const WINDOW = 150;
const BATCH = 60;

export function TranscriptView({ transcript, version, onFork }: { transcript: Transcript; version: number; onFork: (userIndex: number) => void }) {
	const [shown, setShown] = useState(WINDOW);
	const scroller = useRef<HTMLDivElement>(null);
	const sentinel = useRef<HTMLDivElement>(null);
	const pinned = useRef(true);
	const { messages, streaming } = transcript;

	useEffect(() => setShown(WINDOW), [transcript]);

	const results = new Map<string, Extract<Message, { role: "toolResult" }>>();
	for (const m of messages) if (m.role === "toolResult") results.set(m.toolCallId, m);
	const userIndex = new Map<Message, number>();
	let users = 0;
	for (const m of messages) if (m.role === "user") userIndex.set(m, users++);
	const visible = messages.length > shown ? messages.slice(messages.length - shown) : messages;

	useLayoutEffect(() => {
		const el = scroller.current;
		if (el && pinned.current) el.scrollTop = el.scrollHeight;
	});

	// A reader at the bottom stays there when the viewport changes (rotation, a phone keyboard, a resize).
	useEffect(() => {
		const el = scroller.current;
		if (!el) return;
		const observer = new ResizeObserver(() => {
			if (pinned.current) el.scrollTop = el.scrollHeight;
		});
		observer.observe(el);
		return () => observer.disconnect();
	}, []);

	useEffect(() => {
		const el = sentinel.current;
		const root = scroller.current;
		if (!el || !root || messages.length <= shown) return;
		const observer = new IntersectionObserver((entries) => {
			if (!entries.some((e) => e.isIntersecting)) return;
			const before = root.scrollHeight;
			setShown((n) => n + BATCH);
			requestAnimationFrame(() => (root.scrollTop += root.scrollHeight - before)); // keep the reading position
		}, { root, rootMargin: "600px 0px 0px 0px" });
		observer.observe(el);
		return () => observer.disconnect();
	}, [messages.length, shown]);

	const onScroll = () => {
		const el = scroller.current;
		if (el) pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
	};

	return (
		<div class="transcript" ref={scroller} onScroll={onScroll} aria-live="polite">
			{messages.length > shown && (
				<div ref={sentinel} class="earlier">
					<button type="button" class="link" onClick={() => setShown((n) => n + BATCH)}>
						Show earlier messages ({messages.length - shown} more)
					</button>
				</div>
			)}
			{messages.length === 0 && !streaming && <div class="empty">Ask the agent something to begin.</div>}
			{visible.map((message, n) => {
				const index = userIndex.get(message);
				return (
					<MessageView
						key={messages.length - visible.length + n}
						message={message}
						results={results}
						live={transcript.toolOutputs}
						version={version}
						onFork={index === undefined ? undefined : () => onFork(index)}
					/>
				);
			})}
			{streaming && <MessageView key="streaming" message={streaming} results={results} live={transcript.toolOutputs} version={version} streaming />}
		</div>
	);
}
