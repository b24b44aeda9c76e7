/**
 * Side chat: "by the way" tabs beside the session (at most 8, named with letters, digits or underscores), each
 * an agent forked from the conversation that can only read. A tab strip with New tab, the shown tab's
 * transcript (rendered like the main one: same messages, markdown and redaction) and its own message box
 * with Stop. A message to a tab that is still answering is refused with a sentence saying so. The panel says
 * that tabs are not saved: they live in the service's memory only.
 */
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { Message, SideChatTab } from "../../../../src/client/index.js";
import { EPHEMERAL_NOTE, SIDE_CHAT_NAME } from "../../state/side-chat-state";
import type { Transcript } from "../../state/transcript";
import { useDraftBox } from "../draft-box";
import { FollowScroll } from "../follow-scroll";
import { Icon } from "../icons";
import { MessageView } from "../message-view";
import { WorkingIndicator } from "../working-indicator";
import type { PanelProps } from "./panel";
import { EmptyState, PanelLayout, SnapshotPending } from "./panel-layout";
import "../../styles/side-chat.css";

export function SideChatPanel({ controller }: PanelProps) {
	const { ready, sessionId } = controller.state;
	const side = controller.sideChat;
	const [creating, setCreating] = useState(false);
	const snapshot = ready && sessionId ? side.list(sessionId) : undefined;
	const list = snapshot?.state === "loaded" ? snapshot.value : undefined;
	const tabs = list?.tabs ?? [];
	const full = list !== undefined && tabs.length >= list.maxTabs;
	const shown = sessionId ? side.shownTab(sessionId) : undefined;

	return (
		<PanelLayout
			title="Side chat"
			actions={
				tabs.length > 0 && (
				<button
					type="button"
					class="primary small"
					disabled={full || creating}
					title={full ? `At most ${list!.maxTabs} side chats: close one first` : "Open a side chat forked from the conversation as it is now"}
					onClick={() => setCreating(true)}
				>
					<Icon name="plus" />
					New tab
				</button>
				)
			}
		>
			{snapshot?.state !== "loaded" ? (
				<SnapshotPending snapshot={snapshot} ready={ready} loading="Loading side chats…" failed="Side chats could not be read" onRetry={() => side.retry(sessionId!)} />
			) : (
				<div class="side-chat-view">
					{tabs.length === 0 ? (
						<EmptyState title="No side chats">
							<span>Ask a side question without it landing in the main conversation. A tab starts from the conversation so far and can only read: it may open and search files, and look at what the main agent says meanwhile.</span>
							<NewTabForm suggestion={side.suggestName(sessionId!)} taken={[]} full={false} maxTabs={list!.maxTabs} onOpen={(name) => side.open(sessionId!, name)} />
						</EmptyState>
					) : (
						<>
							{creating && (
								<NewTabForm
									suggestion={side.suggestName(sessionId!)}
									taken={tabs.map((t) => t.name)}
									full={full}
									maxTabs={list!.maxTabs}
									onOpen={(name) => side.open(sessionId!, name)}
									onEnd={() => setCreating(false)}
								/>
							)}
							<TabStrip tabs={tabs} shown={shown?.name} streaming={(tab) => side.streaming(sessionId!, tab)} onShow={(name) => side.show(sessionId!, name)} onClose={(name) => void side.close(sessionId!, name)} />
							{shown && <TabView key={`${sessionId}\n${shown.name}`} controller={controller} sessionId={sessionId!} tab={shown} />}
						</>
					)}
					<p class="hint side-ephemeral" title={list?.note}>
						{EPHEMERAL_NOTE}
					</p>
				</div>
			)}
		</PanelLayout>
	);
}

function TabStrip(props: { tabs: SideChatTab[]; shown: string | undefined; streaming(tab: SideChatTab): boolean; onShow(name: string): void; onClose(name: string): void }) {
	return (
		<ul class="side-tabs" aria-label="Side chats">
			{props.tabs.map((tab) => {
				const current = tab.name === props.shown;
				const busy = props.streaming(tab);
				return (
					<li key={tab.name} class={current ? "current" : ""} data-tab={tab.name}>
						<button type="button" class="side-tab" aria-current={current ? "true" : undefined} aria-controls="side-chat-tab" onClick={() => props.onShow(tab.name)}>
							{busy && <span class="side-busy" title="Answering" />}
							<span>{tab.name}</span>
							{busy && <span class="sr-only"> (answering)</span>}
						</button>
						<button type="button" class="side-close ghost" aria-label={`Close side chat ${tab.name}`} title="Close (its conversation is gone)" onClick={() => props.onClose(tab.name)}>
							<Icon name="close" />
						</button>
					</li>
				);
			})}
		</ul>
	);
}

/**
 * Names a new tab: a free name is suggested; the pattern, a taken name and the limit are said inline. With
 * `onEnd` (tabs are open) it is focused at once and can be given up (Cancel, Esc).
 */
function NewTabForm(props: { suggestion: string; taken: string[]; full: boolean; maxTabs: number; onOpen(name: string): Promise<string | undefined>; onEnd?(): void }) {
	const [name, setName] = useState(props.suggestion);
	const [error, setError] = useState("");
	const [busy, setBusy] = useState(false);
	const input = useRef<HTMLInputElement>(null);
	useLayoutEffect(() => {
		if (!props.onEnd) return; // the form of an empty panel waits to be used
		input.current?.focus();
		input.current?.select();
	}, []);
	const check = (value: string): string => {
		if (!SIDE_CHAT_NAME.test(value)) return "Use 1 to 32 letters, digits or underscores (no spaces).";
		if (props.taken.includes(value)) return `A tab named ${value} is open already.`;
		if (props.full) return `At most ${props.maxTabs} side chats: close one first.`;
		return "";
	};
	return (
		<form
			class="side-new"
			aria-label="New side chat"
			onSubmit={(e) => {
				e.preventDefault();
				const value = name.trim();
				const problem = check(value);
				setError(problem);
				if (problem) return void input.current?.focus();
				setBusy(true);
				void props.onOpen(value).then((refused) => {
					setBusy(false);
					if (refused) setError(refused);
					else props.onEnd?.();
				});
			}}
			onKeyDown={(e) => {
				if (e.key !== "Escape" || !props.onEnd) return;
				e.preventDefault(); // Esc gives up the new tab only: the drawer stays open
				e.stopPropagation();
				props.onEnd();
			}}
		>
			<label for="side-new-name">New tab's name</label>
			<div class="side-new-row">
				<input
					ref={input}
					id="side-new-name"
					name="side-chat-name"
					value={name}
					maxLength={32}
					autoComplete="off"
					spellcheck={false}
					aria-invalid={error ? "true" : undefined}
					aria-describedby={error ? "side-new-error" : "side-new-hint"}
					onInput={(e) => {
						setName((e.target as HTMLInputElement).value);
						setError("");
					}}
				/>
				<button type="submit" class="primary" disabled={busy}>
					{busy ? "Opening…" : "Open tab"}
				</button>
				{props.onEnd && (
					<button type="button" class="ghost icon" aria-label="Cancel" title="Cancel" onClick={props.onEnd}>
						<Icon name="close" />
					</button>
				)}
			</div>
			{error ? (
				<p id="side-new-error" class="error-text" role="alert">
					{error}
				</p>
			) : (
				<p id="side-new-hint" class="hint">
					Letters, digits or underscores. It starts from the conversation as it is now.
				</p>
			)}
		</form>
	);
}

function TabView({ controller, sessionId, tab }: { controller: PanelProps["controller"]; sessionId: string; tab: SideChatTab }) {
	const side = controller.sideChat;
	const { transcript, loaded } = side.transcript(sessionId, tab.name);
	const streaming = side.streaming(sessionId, tab);
	const notice = side.notice(sessionId, tab.name);
	const opened = new Date(tab.created);
	return (
		<div class="side-tab-view" id="side-chat-tab" role="region" aria-label={`Side chat ${tab.name}`}>
			<p class="side-meta">
				{tab.model && <span title={`${tab.model}: the session's model when the tab was opened`}>{tab.model.slice(tab.model.indexOf("/") + 1)}</span>}
				<span>thinking {tab.thinkingLevel}</span>
				{!Number.isNaN(opened.getTime()) && <span title={`Opened ${opened.toLocaleString()}`}>{opened.toLocaleTimeString(undefined, { hour: "numeric", minute: "2-digit" })}</span>}
			</p>
			<SideTranscript transcript={transcript} version={transcript.version} loaded={loaded} />
			<SideComposer
				name={tab.name}
				draft={side.draft(sessionId, tab.name)}
				streaming={streaming}
				ready={controller.state.ready}
				notice={notice}
				onDraft={(text) => side.saveDraft(sessionId, tab.name, text)}
				onSend={(text) => side.prompt(sessionId, tab, text)}
				onStop={() => void side.abort(sessionId, tab.name)}
				onDismiss={() => side.dismissNotice(sessionId, tab.name)}
			/>
		</div>
	);
}

/** The tab's messages, following the newest while the reader is at the bottom (as the main transcript does). */
function SideTranscript({ transcript, loaded }: { transcript: Transcript; version: number; loaded: boolean }) {
	const scroller = useRef<HTMLDivElement>(null);
	const content = useRef<HTMLDivElement>(null);
	const follow = useRef<FollowScroll | undefined>(undefined);
	useLayoutEffect(() => {
		const followScroll = new FollowScroll(scroller.current!, content.current!, () => undefined, () => true);
		follow.current = followScroll;
		return () => followScroll.dispose();
	}, []);
	useLayoutEffect(() => follow.current?.pin());

	const { messages, streaming } = transcript;
	const results = new Map<string, Extract<Message, { role: "toolResult" }>>();
	for (const m of messages) if (m.role === "toolResult") results.set(m.toolCallId, m);
	const activity = transcript.activity();
	return (
		<div class="side-transcript" ref={scroller} tabIndex={0} aria-label="Side conversation">
			<div ref={content}>
				{!loaded ? (
					<p class="hint">Loading…</p>
				) : messages.length === 0 && !streaming && !transcript.running ? (
					<p class="hint side-empty">Ask anything on the side. This tab knows the conversation up to when it was opened, and can read files and peek at the main conversation; it changes nothing.</p>
				) : null}
				{messages.map((message, n) => (
					<MessageView key={n} message={message} results={results} live={transcript.toolOutputs} version={transcript.version} />
				))}
				{streaming && <MessageView key="streaming" message={streaming} results={results} live={transcript.toolOutputs} version={transcript.version} streaming />}
				{activity && <WorkingIndicator label={activity} />}
			</div>
		</div>
	);
}

/**
 * The tab's message box: Enter sends, Shift+Enter is a new line. While the tab answers, the button is Stop
 * (Esc too), and Enter says that the tab is still answering instead of sending.
 */
function SideComposer(props: {
	name: string;
	draft: string;
	streaming: boolean;
	ready: boolean;
	notice: string | undefined;
	onDraft(text: string): void;
	onSend(text: string): Promise<boolean>;
	onStop(): void;
	onDismiss(): void;
}) {
	const { text, change, box } = useDraftBox(props.draft, props.onDraft);
	const send = async () => {
		if (!text.trim() || !props.ready) return;
		const sent = text;
		if (props.streaming) return void props.onSend(sent); // refused, with the reason shown: the text stays
		change("");
		if (!(await props.onSend(sent.trim()))) change(sent);
		box.current?.focus();
	};
	return (
		<form
			class="side-composer"
			onSubmit={(e) => {
				e.preventDefault();
				void send();
			}}
		>
			{props.notice && (
				<div class="side-notice" role="alert">
					<span>{props.notice}</span>
					<button type="button" class="ghost icon small" aria-label="Dismiss" onClick={props.onDismiss}>
						<Icon name="close" />
					</button>
				</div>
			)}
			<div class="side-box">
				<textarea
					ref={box}
					name="side-message"
					rows={1}
					value={text}
					placeholder={props.streaming ? `${props.name} is answering…` : `Ask ${props.name}…`}
					aria-label={`Message to side chat ${props.name}`}
					onInput={(e) => change((e.target as HTMLTextAreaElement).value)}
					onKeyDown={(e) => {
						if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
							e.preventDefault();
							void send();
						} else if (e.key === "Escape" && props.streaming) {
							e.preventDefault(); // stops this tab only: not the main run, and the drawer stays open
							e.stopPropagation();
							props.onStop();
						}
					}}
				/>
				{props.streaming ? (
					<button type="button" class="side-stop" onClick={props.onStop} aria-label={`Stop side chat ${props.name}`}>
						<Icon name="stop" />
						<span class="label">Stop</span>
					</button>
				) : (
					<button type="submit" class="primary side-send" disabled={!props.ready || !text.trim()} aria-label={`Send to side chat ${props.name}`}>
						<Icon name="send" />
					</button>
				)}
			</div>
		</form>
	);
}
