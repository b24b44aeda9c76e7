/**
 * Hidden messages (`display: false`) are context for the model, not the reader; two of them still say something
 * to the reader, as a mark in the transcript: the session goal started the reply that follows (its continuation
 * turn), and the service's shutdown cut off the run before (with Continue, while the conversation ends there).
 */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Message } from "../../../src/client/index.js";
import { Icon } from "./icons";

/** The hidden message with which the session goal starts a turn of its own (the goal feature's GOAL_CONTINUE_TYPE). */
const GOAL_TURN = "goal-continue";
/** The hidden message recorded after a run the shutdown cut off (the runtime's RUN_INTERRUPTED_TYPE). */
const RUN_INTERRUPTED = "run_interrupted";

/** What Continue sends: the conversation goes on, and the model knows why it stopped. */
export const CONTINUE_PROMPT = "Continue where you left off: the service restarted while you were working.";

/**
 * Continue for a message, when the conversation ends with it and may go on now (the page provides it, app.tsx);
 * otherwise undefined.
 */
export const ResumeContext = createContext<((message: Message) => (() => void) | undefined) | undefined>(undefined);

/** The mark a hidden message shows, if any. */
export function HiddenMark({ message }: { message: Message }) {
	const resume = useContext(ResumeContext);
	if (message.role !== "custom") return null;
	if (message.customType === GOAL_TURN) {
		return (
			<div class="msg note mark goal-turn">
				<Icon name="goal" />
				Started by the session goal, not by a message
			</div>
		);
	}
	if (message.customType !== RUN_INTERRUPTED) return null;
	const go = resume?.(message);
	return (
		<div class="msg note mark run-interrupted">
			<Icon name="stop" />
			<span>Interrupted: the service restarted while the agent was working, which cut this run off.</span>
			{go && (
				<button type="button" class="small" onClick={go}>
					Continue
				</button>
			)}
		</div>
	);
}
