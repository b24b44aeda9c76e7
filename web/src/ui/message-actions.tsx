/**
 * What a prompt and an answer offer under them: Copy (the text as shown, redacted), Edit (the bubble becomes an
 * editor; sending starts a new branch from before the prompt) and Regenerate (the prompt again on a new branch),
 * the branch switcher ("‹ 2 / 3 ›") where the tree holds other versions of a prompt, when it was written (shown on
 * hover, always read out), and an answer's model, tokens and cost. Refusals (during a run) are the actions' own.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { AssistantMessage } from "../../../src/client/index.js";
import { useCopy } from "../render/copy";
import { redact } from "../render/redact";
import type { MessagePlace } from "../state/message-places";
import { useDraftBox } from "./draft-box";
import { Icon, type IconName } from "./icons";
import "../styles/message-actions.css";

export interface MessageActions {
	/** Sends the prompt `entryId` again on a new branch: with `text` (edited), else as it was; false when refused. */
	resend(entryId: string, text?: string): Promise<boolean>;
	/** Shows the branch that starts at `entryId` (a sibling of a shown message). */
	show(entryId: string): void;
	/** Image `index` of the message `entryId`, which the transcript carried without its data, as a `data:` URI. */
	image(entryId: string, index: number): Promise<string>;
}

function ActionButton({ icon, label, onClick, class: extra }: { icon: IconName; label: string; onClick(): void; class?: string }) {
	return (
		<button type="button" class={`ghost small ${extra ?? ""}`} aria-label={label} title={label} onClick={onClick}>
			<Icon name={icon} />
		</button>
	);
}

function CopyButton({ text }: { text: string }) {
	const [copied, copy] = useCopy();
	return <ActionButton icon={copied ? "check" : "copy"} label={copied ? "Copied" : "Copy message"} onClick={() => copy(redact(text))} />;
}

/**
 * The stamps' formats, built once: `toLocaleTimeString` and `toLocaleDateString` with options build a formatter
 * at every call (about 0.1 ms), which was a third of a message's render in a batch of earlier messages.
 */
const TIME = new Intl.DateTimeFormat([], { hour: "2-digit", minute: "2-digit" });
const DAY = new Intl.DateTimeFormat([], { month: "short", day: "numeric" });

/** When a message was written: its time shows on hover and focus; a screen reader reads the whole date. */
function Stamp({ at, verb }: { at: number | undefined; verb: string }) {
	if (!at) return null;
	const date = new Date(at);
	const full = date.toLocaleString();
	const today = date.toDateString() === new Date().toDateString();
	return (
		<time class="stamp" dateTime={date.toISOString()} title={full} aria-label={`${verb} ${full}`}>
			{(today ? TIME : DAY).format(date)}
		</time>
	);
}

function BranchSwitcher({ place, actions }: { place: MessagePlace; actions: MessageActions }) {
	const { siblings, id } = place;
	const at = siblings.indexOf(id);
	if (siblings.length < 2) return null;
	const step = (by: number) => (
		<button type="button" class="ghost small" disabled={!siblings[at + by]} aria-label={by < 0 ? "Previous version" : "Next version"} onClick={() => actions.show(siblings[at + by]!)}>
			{by < 0 ? "‹" : "›"}
		</button>
	);
	return (
		<span class="branches" role="group" aria-label={`Version ${at + 1} of ${siblings.length} of this message`}>
			{step(-1)}
			<span aria-hidden="true">
				{at + 1} / {siblings.length}
			</span>
			{step(1)}
		</span>
	);
}

function PromptEditor({ text, onSend, onCancel }: { text: string; onSend(text: string): Promise<unknown>; onCancel(): void }) {
	const { text: value, change, box } = useDraftBox(text, () => undefined);
	const [sending, setSending] = useState(false);
	// At mount, not after the paint: a key pressed as the editor appears (Esc) must reach it, not the page.
	useLayoutEffect(() => box.current?.focus(), []);
	const send = () => {
		if (!value.trim() || sending) return;
		setSending(true);
		void onSend(value.trim()).finally(() => setSending(false));
	};
	return (
		<form
			class="msg-editor"
			onSubmit={(e) => {
				e.preventDefault();
				send();
			}}
			onKeyDown={(e) => {
				if (e.key !== "Escape") return;
				e.preventDefault(); // the editor's, not the page's (which would close the drawer)
				onCancel();
			}}
		>
			<textarea
				ref={box}
				rows={1}
				value={value}
				aria-label="Edit your message"
				onInput={(e) => change((e.target as HTMLTextAreaElement).value)}
				onKeyDown={(e) => {
					if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
						e.preventDefault();
						send();
					}
				}}
			/>
			<div class="msg-bar">
				<span class="hint">Sends on a new branch; this one stays in the tree.</span>
				<button type="button" class="small" onClick={onCancel}>
					Cancel
				</button>
				<button type="submit" class="small primary" disabled={!value.trim() || sending}>
					Send
				</button>
			</div>
		</form>
	);
}

export function UserMessage(props: { text: string; bubble?: ComponentChildren; timestamp?: number; place?: MessagePlace; actions?: MessageActions; onFork?: () => void }) {
	const { text, place, actions, onFork } = props;
	const [editing, setEditing] = useState(false);
	const bar = useRef<HTMLDivElement>(null);
	const stop = () => {
		setEditing(false);
		requestAnimationFrame(() => bar.current?.querySelector<HTMLElement>(".edit")?.focus());
	};
	if (editing && place && actions)
		return (
			<div class="msg user">
				<PromptEditor text={text} onCancel={stop} onSend={async (edited) => (await actions.resend(place.id, edited)) && setEditing(false)} />
			</div>
		);
	return (
		<div class="msg user">
			{props.bubble ?? <div class="bubble">{redact(text)}</div>}
			<div class="msg-bar" ref={bar}>
				<Stamp at={props.timestamp} verb="Sent" />
				{place && actions && <BranchSwitcher place={place} actions={actions} />}
				<CopyButton text={text} />
				{place && actions && <ActionButton icon="edit" class="edit" label="Edit and send again" onClick={() => setEditing(true)} />}
				{onFork && (
					<button type="button" class="ghost small fork" onClick={onFork} aria-label="Fork" title="Start a new session from before this message, with this message to edit">
						<Icon name="fork" />
					</button>
				)}
			</div>
		</div>
	);
}

/** The quiet line under an answer that ends a turn: when, which model, its tokens and cost, Copy and Regenerate. */
export function AnswerBar({ message, text, usage, place, actions }: { message: AssistantMessage; text: string; usage?: string; place?: MessagePlace; actions?: MessageActions }) {
	const prompt = place?.promptId;
	return (
		<div class="msg-bar">
			{usage && (
				<span class="usage" title={`${message.provider}/${message.model}`}>
					{usage}
				</span>
			)}
			{text && <CopyButton text={text} />}
			{prompt && actions && <ActionButton icon="retry" label="Regenerate" onClick={() => void actions.resend(prompt)} />}
			<Stamp at={message.timestamp} verb="Answered" />
		</div>
	);
}
