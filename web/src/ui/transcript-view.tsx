/**
 * The transcript: renders the newest messages first and more on demand, so a 10,000-message session opens
 * at once; follows the conversation while the user is at the bottom (see follow-scroll.ts), and offers a
 * "Jump to latest" button, with the count of new messages, once they have scrolled up. Below the messages:
 * what the run is doing when nothing streams, and the messages queued for it.
 */
import type { ComponentChildren, VNode } from "preact";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type { Message } from "../../../src/client/index.js";
import { answerUsage } from "../state/answer-usage";
import { type MessagePlace, messagePlaces, toolResultIds } from "../state/message-places";
import type { Transcript } from "../state/transcript";
import type { TreeState } from "../state/tree-state";
import { FollowScroll } from "./follow-scroll";
import { Icon } from "./icons";
import type { MessageActions } from "./message-actions";
import { MessageView } from "./message-view";
import { PendingMessages } from "./pending-messages";
import { WorkingIndicator } from "./working-indicator";

/**
 * Messages rendered in the first frame: more than a screen holds, so that a session opens at its newest messages
 * without waiting for the markdown of the rest (a 10,000-message session once spent about 100 ms rendering 150
 * messages before its first paint).
 */
const FIRST = 24;
/** Then, a batch a frame, until this many are rendered; more as the user nears the top. */
const WINDOW = 150;
/** Messages added in one frame: about 0.5 ms each with their markdown, so a batch stays well inside a frame. */
const BATCH = 16;
/**
 * Messages in a group, which the browser lays out and paints only near the view (transcript.css): its work for
 * that is per element at every frame of a scroll, so per message it grew with the messages rendered (2 ms a
 * frame at 600). Groups start at multiples of this in the session, so a message stays in its group.
 */
const GROUP = 16;
/** How far above the view earlier messages are rendered: ahead of a fast scroll, a batch a frame. */
const LOOKAHEAD_PX = 2000;
/** Messages are given their place in the tree (for their actions) this many at a time, ahead of those rendered. */
const PLACED = 256;

export interface TranscriptViewProps {
	transcript: Transcript;
	version: number;
	/** Fork before a user message; without it (a guest) no message offers Fork. */
	onFork?: (userIndex: number) => void;
	/** Shown above the messages (the setup card when no model is configured). */
	notice?: ComponentChildren;
	/** The session's tree, for edit and resend, regenerate and the branch switcher (a guest has none). */
	branches?: { tree: TreeState; putInComposer(text: string): void };
}

export function TranscriptView({ transcript, version, onFork, notice, branches }: TranscriptViewProps) {
	const [shown, setShown] = useState(FIRST);
	const [following, setFollowing] = useState(true);
	const scroller = useRef<HTMLDivElement>(null);
	const content = useRef<HTMLDivElement>(null);
	const sentinel = useRef<HTMLDivElement>(null);
	const follow = useRef<FollowScroll | undefined>(undefined);
	/** The session's message count when the user scrolled away: later ones are "new". */
	const leftAt = useRef(0);
	/** The sends of this page seen so far (Transcript.followRequests): each one follows again. */
	const followRequests = useRef(transcript.followRequests);
	const { messages, streaming, offset } = transcript;
	// Scrolled up, messages arriving below widen the window instead of sliding it: the oldest rendered message
	// leaving the top would move the text being read.
	const total = offset + messages.length;
	const lastTotal = useRef(total);
	const grown = useRef(0);
	if (total > lastTotal.current && follow.current && !follow.current.following) grown.current += total - lastTotal.current;
	// Following again (at the bottom, where the top of the window is out of sight), the window slides as before.
	else if (follow.current?.following) grown.current = 0;
	lastTotal.current = total;
	const rendered = shown + grown.current;

	useLayoutEffect(() => {
		const followScroll = new FollowScroll(
			scroller.current!,
			content.current!,
			(now) => {
				if (!now) leftAt.current = transcript.offset + transcript.messages.length;
				setFollowing(now);
			},
			() => transcript.messages.length > 0 || transcript.streaming !== undefined || transcript.running,
		);
		follow.current = followScroll;
		return () => followScroll.dispose();
	}, []);

	// After every render: at the bottom while following, else the text in view where it was (follow-scroll.ts).
	// Sending is a wish to follow: the page jumps to the message sent and follows the reply.
	useLayoutEffect(() => {
		if (transcript.followRequests !== followRequests.current) {
			followRequests.current = transcript.followRequests;
			follow.current?.jump();
		} else follow.current?.rendered();
	});

	/** Renders a batch of earlier messages above (the reader's place is kept by FollowScroll). */
	const addEarlier = () => setShown((n) => n + BATCH);

	// After the first frame, the rest of the first window, a batch a frame.
	useEffect(() => {
		if (rendered >= WINDOW || messages.length <= rendered) return;
		const frame = requestAnimationFrame(addEarlier);
		return () => cancelAnimationFrame(frame);
	}, [messages.length, rendered]);

	useEffect(() => {
		const el = sentinel.current;
		const root = scroller.current;
		if (!el || !root || messages.length <= rendered || rendered < WINDOW) return;
		const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && addEarlier(), {
			root,
			rootMargin: `${LOOKAHEAD_PX}px 0px 0px 0px`,
		});
		observer.observe(el);
		return () => observer.disconnect();
	}, [messages.length, rendered]);

	// The tree is read once the whole transcript is here (not to slow its older messages down), and kept current
	// by events from then on: the message actions need it.
	const tree = branches?.tree.tree?.sessionId === transcript.sessionId ? branches.tree.tree : undefined;
	useEffect(() => {
		if (!transcript.partial) branches?.tree.ensure(transcript.sessionId);
	}, [branches?.tree, !tree, transcript.partial, transcript.sessionId]);
	// A message keeps its place while the transcript and the tree disagree for a moment (during a run, a message's
	// end and its entry arrive apart): every message's actions would otherwise render twice per message. Only the
	// messages rendered are placed (up to the next multiple of PLACED) and kept: a 10,000-message session's tree,
	// arriving as the reader starts scrolling up, cost that frame 20 ms placing and keeping every message.
	const known = useRef(new WeakMap<Message, MessagePlace>());
	const placed = Math.ceil((rendered + 1) / PLACED) * PLACED;
	const paired = useMemo(() => tree && messagePlaces(tree, messages, placed), [tree, tree?.version, messages, placed]);
	const placeOf = (message: Message) => {
		const place = paired?.get(message);
		if (place) known.current.set(message, place);
		return place ?? known.current.get(message);
	};
	const resultIds = useMemo(() => tree && toolResultIds(tree), [tree, tree?.version]);
	const usage = useMemo(() => answerUsage(messages), [messages]);
	const actions = useMemo(() => branches && messageActions(transcript, branches), [branches?.tree]);

	// Read once per list of messages, not at every render: a batch of earlier messages, a streamed delta and the
	// first scroll up each render the view, and 10,000 messages took a millisecond or two to go through.
	const [results, userIndex] = useMemo(() => {
		const results = new Map<string, Extract<Message, { role: "toolResult" }>>();
		const userIndex = new Map<Message, number>();
		for (const m of messages) {
			if (m.role === "toolResult") results.set(m.toolCallId, m);
			else if (m.role === "user") userIndex.set(m, userIndex.size);
		}
		return [results, userIndex] as const;
	}, [messages]);
	const visible = messages.length > rendered ? messages.slice(messages.length - rendered) : messages;
	const fresh = following ? 0 : messages.slice(Math.max(0, leftAt.current - offset)).filter((m) => (m.role === "user" || m.role === "assistant") && m.display !== false).length;
	const activity = transcript.activity();

	return (
		<div class="chat">
			<div class="transcript" id="transcript" ref={scroller} role="region" aria-label="Conversation">
				<div class="transcript-content" ref={content}>
					{notice}
					{messages.length > rendered && !transcript.partial && (
						<div ref={sentinel} class="earlier">
							<button type="button" class="link" onClick={() => setShown((n) => n + BATCH)}>
								Show earlier messages ({messages.length - rendered} more)
							</button>
						</div>
					)}
					{messages.length === 0 && !streaming && !notice && (
						<div class="empty">
							<strong>What should we work on?</strong>
							<span>Ask the agent something to begin.</span>
						</div>
					)}
					{groups(visible, offset + messages.length - visible.length, (message, key) => {
						const index = userIndex.get(message);
						return (
							<MessageView
								key={key}
								message={message}
								results={results}
								live={transcript.toolOutputs}
								version={version}
								stopReason={message.role === "assistant" ? transcript.stopReason(message) : undefined}
								place={placeOf(message)}
								actions={actions}
								usage={usage.get(message)}
								resultIds={resultIds}
								// A message's index among user messages is known once the older messages are here.
								onFork={index === undefined || !onFork || transcript.partial ? undefined : () => onFork(index)}
							/>
						);
					})}
					{streaming && <MessageView key="streaming" message={streaming} results={results} live={transcript.toolOutputs} version={version} streaming />}
					{activity && <WorkingIndicator label={activity} />}
					<PendingMessages queued={transcript.queued} />
				</div>
			</div>
			{!following && (messages.length > 0 || streaming) && (
				<button type="button" class="jump-latest" onClick={() => follow.current?.jump()}>
					<Icon name="down" />
					{fresh > 0 ? `${fresh} new message${fresh === 1 ? "" : "s"}` : "Jump to latest"}
				</button>
			)}
		</div>
	);
}

/** The messages' views in groups of GROUP (by their index in the session, `first` being the first one's). */
function groups(messages: Message[], first: number, view: (message: Message, key: number) => VNode) {
	const grouped: VNode[][] = [];
	messages.forEach((message, n) => (grouped[Math.floor((first + n) / GROUP) - Math.floor(first / GROUP)] ??= []).push(view(message, first + n)));
	return grouped.map((views, g) => (
		<div class="msgs" key={Math.floor(first / GROUP) + g}>
			{views}
		</div>
	));
}

/**
 * The message actions on the tree, refused with the reason during a run (never queued: the branch they start
 * from would be the one the run is writing). A resend is a send: the view follows what it starts.
 */
function messageActions(transcript: Transcript, { tree, putInComposer }: NonNullable<TranscriptViewProps["branches"]>): MessageActions {
	const refused = (what: string) => transcript.running && (tree.refuse(`Cannot ${what} while a run is active: wait for it to end, or stop it.`), true);
	const id = transcript.sessionId;
	return {
		resend: async (entryId, text) => {
			if (refused(text === undefined ? "regenerate" : "send an edited message")) return false;
			transcript.followRequests++;
			return tree.resend(id, entryId, text);
		},
		show: (entryId) => {
			if (!refused("switch branches")) void tree.showBranch(id, entryId).then((text) => text !== undefined && putInComposer(text));
		},
		image: (entryId, index) => tree.image(id, entryId, index),
	};
}
