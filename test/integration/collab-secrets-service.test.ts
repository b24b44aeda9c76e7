/**
 * Secrets streaming to a view guest of the real service: the fake model streams every secret shape in pieces of
 * three characters, and of one to five at random, as its reply and its thinking; a command the model runs and
 * one the user runs print keys in two writes. The guest's frames never hold 8 characters of a secret, and each
 * stream's deltas join to exactly the redacted whole.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { redactSecrets } from "../../src/shared/redact.js";
import { type ChatService, startChatService } from "../support/browser.js";
import { type HostMessage, RawGuest } from "../support/collab-guest.js";
import { leaks, printInTwoWrites, SECRET_SHAPES, SECRETS_LINE, SECRETS_REPLY } from "../support/secret-shapes.js";
import { TestClient } from "../support/ws-client.js";

let service: ChatService;
let host: TestClient;
let guest: RawGuest;

before(async () => {
	service = await startChatService();
	host = await TestClient.connect(service.skiff.wsUrl);
	const room = await host.ok({ type: "collab_start" });
	guest = await RawGuest.join(room.viewLink);
});

after(async () => {
	guest?.socket.terminate();
	host?.close();
	await service?.close();
});

/** The frames the guest got from now until `done` says the last one came. */
async function framesOf(start: () => Promise<unknown>, done: (frame: HostMessage) => boolean): Promise<HostMessage[]> {
	const from = guest.messages.length;
	await start();
	await guest.waitForMessage(done, from);
	return guest.messages.slice(from);
}

/**
 * No frame holds a secret. The user's own prompt is left out: it holds the directives' JSON, where an escape
 * (`\n`) glues to the secret after it, so redactSecrets does not see that word start; what streams is the point.
 */
function assertNoLeak(frames: HostMessage[]): void {
	for (const frame of frames) {
		if (frame.message?.role === "user") continue;
		assert.deepEqual(leaks(JSON.stringify(frame)), [], `a frame: ${JSON.stringify(frame).slice(0, 300)}`);
	}
}

/** What the deltas of one kind of block (text, thinking) of the assistant messages in `frames` join to. */
function joined(frames: HostMessage[], kind: "text" | "thinking"): string {
	return frames
		.filter((m) => m.type === "message_update" && String(m.assistantMessageEvent.type).startsWith(`${kind}_`))
		.map((m) => m.assistantMessageEvent.delta ?? "")
		.join("");
}

// Paced (SLOW), each piece comes in a turn of its own, so the service does not merge them (delta-run.ts) and the
// guest's redaction is given the small pieces; in a burst, the service merges what each turn brought, cut wherever
// its reads of the model's stream happened to end.
for (const chunks of ["3", "5 1234", "4 99"]) {
	for (const paced of [true, false]) {
		test(`a reply and its thinking streamed in pieces (CHUNKS ${chunks}${paced ? ", paced" : ", in a burst"}) reach the guest without any secret`, async () => {
			const frames = await framesOf(
				() => host.ok({ type: "prompt", message: `THINK ${SECRETS_LINE}\nREPLY_JSON ${JSON.stringify(SECRETS_REPLY)}\nCHUNKS ${chunks}${paced ? "\nSLOW 1" : ""}` }),
				(m) => m.type === "agent_end",
			);
			assertNoLeak(frames);
			assert.equal(joined(frames, "text"), redactSecrets(SECRETS_REPLY), "the reply's deltas join to the redacted reply");
			assert.equal(joined(frames, "thinking"), redactSecrets(SECRETS_LINE), "the thinking's deltas join to the redacted thinking");
			if (paced) assert.ok(frames.filter((m) => m.type === "message_update").length > 100, "it did stream in small pieces");
		});
	}
}

const KEY = "sk-ant-api03-Zq8vK2mXp4Lr7Tn1Wb5Yc9Hd3Fg6Js0AeUo";
const PEM = SECRET_SHAPES.find((s) => s.name === "PEM RSA ")!.text;

for (const [what, first, second] of [
	["an Anthropic key", KEY.slice(0, 21), KEY.slice(21)],
	["a PEM key", PEM.slice(0, PEM.indexOf("\n") + 20), PEM.slice(PEM.indexOf("\n") + 20)],
] as const) {
	test(`${what} a command prints in two writes reaches the guest redacted, as the model's tool and as the user's shell`, async () => {
		const command = printInTwoWrites(first, second);
		const tool = await framesOf(() => host.ok({ type: "prompt", message: `RUN ${command}` }), (m) => m.type === "agent_end");
		assertNoLeak(tool);
		const updates = tool.filter((m) => m.type === "tool_execution_update" || m.type === "tool_execution_end");
		const streamed = updates.map((m) => m.outputDelta ?? (m.type === "tool_execution_update" ? m.partialResult.content[0]?.text ?? "" : "")).join("");
		assert.equal(streamed, redactSecrets(`${first}${second}\n`), "the tool's output deltas join to its redacted output");
		assert.ok(updates.length >= 3, "the output came in more than one update");

		const shell = await framesOf(() => host.ok({ type: "bash", command }), (m) => m.type === "bash_execution_end");
		assertNoLeak(shell);
		const output = shell.filter((m) => m.type.startsWith("bash_execution_")).map((m) => m.outputDelta ?? "").join("");
		assert.equal(output, redactSecrets(`${first}${second}\n`), "the shell's output deltas join to its redacted output");
	});
}
