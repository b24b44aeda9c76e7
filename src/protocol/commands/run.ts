/** Run control: start a run, add to it, stop it. */
import { Type } from "typebox";
import { CodedError } from "../../shared/errors.js";
import { defineCommand, NoFields, NoResult } from "../command.js";
import { ImagesSchema, sendWithImages } from "../attached-images.js";
import { QueuedMessagesSchema } from "../schemas/session.js";

const Message = Type.String({ minLength: 1, description: "The user's text." });

export const prompt = defineCommand({
	name: "prompt",
	summary:
		"Starts a run with a user message. Acknowledged once the prompt is accepted and recorded on disk; the run " +
		"streams as events. While a run is active it is refused (`busy`), unless `streamingBehavior` says to steer " +
		"or queue it as a follow-up instead (as in pi).",
	params: Type.Object(
		{
			message: Message,
			images: ImagesSchema,
			streamingBehavior: Type.Optional(
				Type.Enum(["steer", "followUp"], { description: "What to do with the message if a run is active: `steer` it, or `followUp` after it." }),
			),
		},
		{ additionalProperties: false },
	),
	result: NoResult,
	handler: ({ message, images: named, streamingBehavior }, context) =>
		sendWithImages(named, context.attachments, async (images) => {
			const session = await context.session();
			const { isStreaming } = session.handle.state();
			if (session.handle.isBashRunning && !isStreaming) {
				throw new CodedError("busy", "A shell command is running in this session: wait for it to end, or send abort_bash");
			}
			// A compaction under way (pi compacts on its own when a reply fills the context) is waited for by the
			// prompt itself; only a run makes a new prompt wrong.
			if (!isStreaming) return session.handle.prompt(message, images);
			if (streamingBehavior) return session.handle[streamingBehavior](message, images);
			throw new CodedError("busy", "A run is already active in this session: send `steer` to guide it, or `follow_up` to queue a message for after it");
		}),
});

/** A command that adds a message to the active run, and is refused while idle. */
function queueingCommand(name: string, summary: string, queue: "steer" | "followUp") {
	return defineCommand({
		name,
		summary,
		params: Type.Object({ message: Message, images: ImagesSchema }, { additionalProperties: false }),
		result: NoResult,
		handler: ({ message, images: named }, context) =>
			sendWithImages(named, context.attachments, async (images) => {
				const session = await context.session();
				if (!session.handle.isBusy) throw new CodedError("conflict", "No run is active in this session: send `prompt` instead");
				await session.handle[queue](message, images);
			}),
	});
}

export const steer = queueingCommand(
	"steer",
	"Adds a message to the active run; the agent sees it after the current tool call. Acknowledged once queued " +
		"(it is recorded when the agent takes it; `queue_update` shows what waits). What the run has not taken when it " +
		"ends (aborted or failed) is dropped, announced by a `queue_update`; what comes too late for a run that ends well " +
		"starts the next run.",
	"steer",
);

export const followUp = queueingCommand(
	"follow_up",
	"Queues a message to be sent when the active run finishes. Acknowledged once queued. Dropped, with a " +
		"`queue_update`, when the run ends without taking it (aborted or failed); when it comes too late for a run that " +
		"ends well, it starts the next run.",
	"followUp",
);

export const abort = defineCommand({
	name: "abort",
	summary:
		"Stops the active run (the partial reply is kept, marked aborted), and a branch summary of `navigate_tree` under " +
		"way. Steering and follow-up messages still waiting are not delivered later: they are dropped and returned in " +
		"`dropped` (a `queue_update` shows the queues empty), so a client can put their text back in the composer. " +
		"Succeeds when idle too.",
	params: NoFields,
	result: Type.Object({ dropped: QueuedMessagesSchema }),
	handler: async (_params, context) => {
		const { handle } = await context.session();
		// Cleared first: once the run stops, pi would keep them for the next prompt, where nobody expects them.
		const dropped = handle.clearQueue();
		await handle.abort();
		return { dropped };
	},
});

export const abortRetry = defineCommand({
	name: "abort_retry",
	summary: "Stops waiting to retry a failed model call (see `auto_retry_start`); the run then ends with the error. Succeeds when nothing waits.",
	params: NoFields,
	result: NoResult,
	handler: async (_params, context) => (await context.session()).handle.abortRetry(),
});

export const runCommands = [prompt, steer, followUp, abort, abortRetry];
