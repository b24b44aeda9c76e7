/**
 * The message box, pinned under the transcript. Idle: Enter or Send sends `prompt`. During a run: Enter or the
 * button sends `steer` (the button says so), and Esc or the Abort button stops the run. Shift+Enter inserts a
 * newline. What is typed is the draft of this composer's session (see drafts.ts); a note above it says when
 * the page put text back (queued messages a stopped run did not take).
 */
import type { ComponentChildren } from "preact";
import { useLayoutEffect } from "preact/hooks";
import { useDraftBox } from "./draft-box";
import { COMPOSER_ID } from "./focus";
import { Icon } from "./icons";

export interface ComposerProps {
	draft: string;
	/** A run is in flight (and the page is connected): the button steers, Abort shows. */
	running: boolean;
	ready: boolean;
	note?: string;
	placeholder?: string;
	/** The hint under the box while idle (by default it also points to the shortcuts). */
	idleHint?: ComponentChildren;
	onDraft(text: string): void;
	onSend(text: string): Promise<boolean>;
	onAbort(): void;
	onDismissNote(): void;
}

export function Composer(props: ComposerProps) {
	const { text, change, box } = useDraftBox(props.draft, props.onDraft);

	// A new composer (another session, or text put back) keeps the focus its predecessor had.
	useLayoutEffect(() => {
		if (document.activeElement === document.body || !document.activeElement) box.current?.focus();
	}, []);

	const send = async () => {
		if (!text.trim() || !props.ready) return;
		const sent = text;
		change("");
		if (!(await props.onSend(sent))) change(sent); // keep what failed to send
		box.current?.focus();
	};
	const onKeyDown = (event: KeyboardEvent) => {
		if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
			event.preventDefault();
			void send();
		} else if (event.key === "Escape" && props.running) {
			event.preventDefault();
			props.onAbort();
		}
	};
	return (
		<div class="composer-wrap">
			{props.note && (
				<div class="composer-note" role="note">
					<span>{props.note}</span>
					<button type="button" class="ghost icon small" aria-label="Dismiss note" onClick={props.onDismissNote}>
						<Icon name="close" />
					</button>
				</div>
			)}
			<form
				class="composer"
				onSubmit={(e) => {
					e.preventDefault();
					void send();
				}}
			>
				<textarea
					id={COMPOSER_ID}
					ref={box}
					value={text}
					rows={1}
					placeholder={props.placeholder ?? (props.running ? "Steer the agent…" : "Ask the agent…")}
					onInput={(e) => change((e.target as HTMLTextAreaElement).value)}
					onKeyDown={onKeyDown}
					aria-label="Message"
					aria-keyshortcuts="Enter"
				/>
				<div class="composer-actions">
					{props.running && (
						<button type="button" class="abort" onClick={props.onAbort}>
							<Icon name="stop" />
							<span class="label">Abort</span>
						</button>
					)}
					<button type="submit" class="primary send" disabled={!props.ready || !text.trim()}>
						<span class="label">{props.running ? "Steer" : "Send"}</span>
						<Icon name="send" />
					</button>
				</div>
			</form>
			<p class="composer-hint">
				{props.running ? (
					<>
						<kbd>Enter</kbd> steers the run · <kbd>Esc</kbd> stops it
					</>
				) : (
					(props.idleHint ?? (
						<>
							<kbd>Enter</kbd> sends · <kbd>Shift</kbd>+<kbd>Enter</kbd> new line · <kbd>?</kbd> shortcuts
						</>
					))
				)}
			</p>
		</div>
	);
}
