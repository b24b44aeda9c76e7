/**
 * Steering and follow-up messages the run has not taken yet (from `queue_update`), as pending bubbles under the
 * reply. When the agent takes one it arrives as an ordinary user message and its bubble goes.
 */
import type { QueuedMessages } from "../state/transcript";
import { UserBubble } from "./user-bubble";

export function PendingMessages({ queued }: { queued: QueuedMessages }) {
	const bubbles = [
		...queued.steering.map((text) => ({ text, label: "Steer · waiting for the agent to read it" })),
		...queued.followUp.map((text) => ({ text, label: "Follow-up · sent when this reply ends" })),
	];
	return (
		<>
			{bubbles.map(({ text, label }, n) => (
				<div key={n} class="msg user pending" data-pending="true">
					<UserBubble content={text} />
					<span class="pending-label">{label}</span>
				</div>
			))}
		</>
	);
}
