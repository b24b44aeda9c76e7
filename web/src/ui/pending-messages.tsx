/**
 * Steering and follow-up messages the run has not taken yet (from `queue_update`), as pending bubbles under the
 * reply. When the agent takes one it arrives as an ordinary user message and its bubble goes.
 */
import { redact } from "../render/redact";
import type { QueuedMessages } from "../state/transcript";

export function PendingMessages({ queued }: { queued: QueuedMessages }) {
	const bubbles = [
		...queued.steering.map((text) => ({ text, label: "Steer · waiting for the agent to read it" })),
		...queued.followUp.map((text) => ({ text, label: "Follow-up · sent when this reply ends" })),
	];
	return (
		<>
			{bubbles.map(({ text, label }, n) => (
				<div key={n} class="msg user pending" data-pending="true">
					<div class="bubble">{redact(text)}</div>
					<span class="pending-label">{label}</span>
				</div>
			))}
		</>
	);
}
