/**
 * One image of a recorded message, on demand: the wire leaves out the data of images past its budget
 * (wire-images.ts), and a client shows them by asking for each as it needs it. One image per command, and one
 * such command at a time per client, each once the previous answer has left the service, so that however many
 * a client asks for at once, and however slowly it reads, the service holds one image's answer at a time for
 * it (a 5 MiB image is 6.7 MiB of base64; a client's queue holds 16 MiB).
 */
import { Type } from "typebox";
import { CodedError } from "../../shared/errors.js";
import { defineCommand } from "../command.js";
import type { ClientLink } from "../context.js";
import { MAX_EVENT_IMAGE_CHARS } from "../wire-images.js";

/**
 * Per client, while one of its get_image commands is running or its answer has not left the service yet:
 * when that answer has left. A client without an entry asks its first image, or asks after the last answer
 * left: that one runs at once.
 */
const answersLeft = new WeakMap<ClientLink, Promise<void>>();

/**
 * Runs `run` once the client's previous get_image has answered and its answer has left the service: taking
 * turns alone is not enough, since answers are built faster than a slow client reads them, and four 5 MiB
 * images waiting in its queue would be beyond its 16 MiB and cut it off. Only a command that follows another
 * waits; the first of a burst (or one asked once the answers before it left) runs at once.
 */
function oneAtATime<T>(client: ClientLink, run: () => Promise<T>): Promise<T> {
	const before = answersLeft.get(client);
	const done = before ? before.then(run) : run();
	const left = done.then(
		() => answerLeft(client),
		() => answerLeft(client),
	);
	answersLeft.set(client, left);
	// Forgotten once nothing follows it, so the next image after a pause does not wait for what already left.
	void left.then(() => {
		if (answersLeft.get(client) === left) answersLeft.delete(client);
	});
	return done;
}

/** Resolves once an answer the handler just returned has left the service (never rejects). */
async function answerLeft(client: ClientLink): Promise<void> {
	// The answer reaches the client's queue a few promise steps after its handler returned: the next turn of
	// the event loop is after them.
	await new Promise((resolve) => setImmediate(resolve));
	await client.drained?.().catch(() => undefined);
}

export const getImage = defineCommand({
	name: "get_image",
	summary:
		"One image of a user message or tool result, with its data: what a transcript or event sent without it " +
		"(`omittedBytes`). Read from the session's tree, so any branch; one at a time per client, each once the one before has " +
		"left the service (more wait their turn, so a client that reads slowly is never sent more than its queue holds). " +
		"`not_found` for an unknown entry, `invalid_command` for an entry that is not such a message or an index past " +
		"its images, `limit` for an image larger than one response may carry.",
	params: Type.Object(
		{
			entryId: Type.String({ minLength: 1, maxLength: 128, description: "The message's entry id (get_tree)." }),
			index: Type.Integer({ minimum: 0, maximum: 63, description: "Which of the message's images, counted from 0 in its content's order." }),
		},
		{ additionalProperties: false },
	),
	result: Type.Object({ mimeType: Type.String(), data: Type.String({ description: "Base64." }) }),
	handler: async ({ entryId, index }, context) =>
		oneAtATime(context.client, async () => {
			const message = (await context.session()).handle.entryMessage(entryId) as { role?: unknown; content?: unknown } | undefined;
			if (message?.role !== "user" && message?.role !== "toolResult") {
				throw new CodedError("invalid_command", `Invalid command: entry ${entryId} is not a user message or tool result (only they carry images)`);
			}
			const images = Array.isArray(message.content) ? message.content.filter((block) => block?.type === "image") : [];
			const image = images[index] as { data?: unknown; mimeType?: unknown } | undefined;
			if (!image || typeof image.data !== "string" || typeof image.mimeType !== "string") {
				throw new CodedError("invalid_command", `Invalid command: \`index\` ${index} is past the ${images.length} image(s) of entry ${entryId}`);
			}
			if (image.data.length > MAX_EVENT_IMAGE_CHARS) {
				throw new CodedError("limit", `Image ${index} of entry ${entryId} is ${image.data.length} characters of base64, over the ${MAX_EVENT_IMAGE_CHARS} one response carries`);
			}
			return { mimeType: image.mimeType, data: image.data };
		}),
});

export const imageCommands = [getImage];
