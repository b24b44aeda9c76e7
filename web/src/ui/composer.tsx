/**
 * The prompt box. Idle: Enter or Send sends `prompt`. During a run: Enter or the button sends `steer` (the
 * button says so), and Esc or the Abort button stops the run. Shift+Enter inserts a newline.
 */
import { useRef, useState } from "preact/hooks";

export function Composer(props: { running: boolean; ready: boolean; onSend(text: string): Promise<boolean>; onAbort(): void; draft?: string }) {
	const [text, setText] = useState(props.draft ?? "");
	const box = useRef<HTMLTextAreaElement>(null);
	const send = async () => {
		if (!text.trim() || !props.ready) return;
		const sent = text;
		setText("");
		if (!(await props.onSend(sent))) setText(sent); // keep what failed to send
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
		<form
			class="composer"
			onSubmit={(e) => {
				e.preventDefault();
				void send();
			}}
		>
			<textarea
				ref={box}
				value={text}
				rows={3}
				placeholder={props.running ? "Steer the running agent… (Esc stops it)" : "Ask the agent… (Enter sends, Shift+Enter for a new line)"}
				onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
				onKeyDown={onKeyDown}
				aria-label="Message"
			/>
			<div class="composer-actions">
				{props.running && (
					<button type="button" class="abort" onClick={props.onAbort}>
						Abort
					</button>
				)}
				<button type="submit" class="primary send" disabled={!props.ready || !text.trim()}>
					{props.running ? "Steer" : "Send"}
				</button>
			</div>
		</form>
	);
}
