/**
 * Streamed-secret reassembly by a guest: a view guest follows a session while the fake model streams replies
 * (and thinking) full of secrets of every shape redactSecrets knows, cut at random into pieces of one to a few
 * characters, and now and then runs a command that prints a key in two writes; a second view guest joins in the
 * middle of some replies. Fails if any frame a guest got, or the text its deltas join to, shows 8 characters
 * of a secret, or if the deltas do not join to exactly the redacted whole.
 */
import { redactSecrets } from "../../src/shared/redact.js";
import { type HostMessage, RawGuest } from "../../test/support/collab-guest.js";
import { Prng } from "../../test/support/prng.js";
import { leaks, printInTwoWrites, SECRET_SHAPES, secretTexts } from "../../test/support/secret-shapes.js";
import { StressClient } from "../client.js";
import { fmt, type ScenarioResult } from "../result.js";
import { startService } from "../service.js";

export interface StreamedSecretsOptions {
	replies: number;
	seed: number;
}

const MAX_FAILURES = 10;
const REPLY_LIMIT_MS = 60_000;

/** What the deltas of one kind of block (text, thinking) in `frames` join to. */
function joined(frames: readonly HostMessage[], kind: "text" | "thinking"): string {
	return frames
		.filter((m) => m.type === "message_update" && String(m.assistantMessageEvent.type).startsWith(`${kind}_`))
		.map((m) => m.assistantMessageEvent.delta ?? "")
		.join("");
}

/**
 * The frames that show a secret. The user's own prompts are left out (in events and in snapshots): they hold
 * the directives' JSON, where an escape (`\n`) glues to the secret after it; what streams is the point here.
 */
function leaking(frames: readonly HostMessage[]): string[] {
	const notTyped = (m: HostMessage) => m.message?.role !== "user";
	return frames
		.filter(notTyped)
		.map((m) => (m.type === "collab_snapshot" ? { ...m, messages: m.messages.filter((x: HostMessage) => x.role !== "user") } : m))
		.flatMap((m) => leaks(JSON.stringify(m)));
}

export async function streamedSecrets(options: StreamedSecretsOptions): Promise<ScenarioResult> {
	const service = await startService();
	const failures: string[] = [];
	const found = { leaks: 0, mismatches: 0 };
	const fail = (what: string) => failures.length < MAX_FAILURES && failures.push(what);
	const guests: RawGuest[] = [];
	const prng = new Prng(options.seed);
	let frames = 0;
	let deltas = 0;
	let lateJoins = 0;
	const host = await StressClient.connect(service.skiff.wsUrl);
	try {
		const room = await host.ok({ type: "collab_start" });
		const guest = await RawGuest.join(room.viewLink);
		guests.push(guest);
		for (let reply = 1; reply <= options.replies; reply++) {
			const texts = secretTexts(prng).filter(() => prng.chance(0.15));
			const text = texts.map((t) => t.text).join("\n\n") || SECRET_SHAPES[0]!.text;
			const thinking = texts.map((t) => t.shape.text).filter((t) => !t.includes("\n")).join(" then ");
			const chunks = `${1 + prng.int(6)} ${prng.int(2 ** 30)}`;
			const run = reply % 5 === 0 ? `\nRUN ${printInTwoWrites(`key sk-ant-api03-Zq8vK2m`, `Xp4Lr7Tn1Wb5Yc9Hd3Fg6Js0AeUo`)}` : "";
			const late = reply % 4 === 0;
			const prompt = `${thinking ? `THINK ${thinking}\n` : ""}REPLY_JSON ${JSON.stringify(text)}\nCHUNKS ${chunks}${late ? "\nPAUSE 200" : ""}${run}`;
			const from = guest.messages.length;
			await host.ok({ type: "prompt", message: prompt });
			let latecomer: RawGuest | undefined;
			if (late) {
				// Joins while the reply streams (the model pauses after its first piece).
				await guest.waitForMessage((m) => m.type === "message_update", from);
				latecomer = await RawGuest.join(room.viewLink);
				guests.push(latecomer);
				lateJoins++;
			}
			await guest.waitFor(() => guest.messages.slice(from).find((m) => m.type === "agent_end"), "agent_end", REPLY_LIMIT_MS);
			const got = guest.messages.slice(from);
			frames += got.length;
			deltas += got.filter((m) => m.type === "message_update" && typeof m.assistantMessageEvent.delta === "string").length;
			for (const leak of leaking(got)) {
				found.leaks++;
				fail(`reply ${reply} (CHUNKS ${chunks}): the guest saw ${leak}`);
			}
			// The first assistant message is the reply (a RUN adds a tool call to it and a reply after the tool).
			const firstEnd = got.findIndex((m) => m.type === "message_end" && m.message.role === "assistant");
			const replyFrames = got.slice(0, firstEnd);
			for (const [kind, whole] of [["text", text], ["thinking", thinking]] as const) {
				const shown = joined(replyFrames, kind);
				for (const leak of leaks(shown)) {
					found.leaks++;
					fail(`reply ${reply} (CHUNKS ${chunks}): the guest's ${kind} deltas join to ${leak}`);
				}
				if (shown === redactSecrets(whole)) continue;
				found.mismatches++;
				fail(`reply ${reply} (CHUNKS ${chunks}): the ${kind} deltas do not join to the redacted ${kind}`);
			}
			if (latecomer) {
				await latecomer.waitFor(() => latecomer!.messages.find((m) => m.type === "agent_end"), "agent_end", REPLY_LIMIT_MS);
				frames += latecomer.messages.length;
				for (const leak of leaking(latecomer.messages)) {
					found.leaks++;
					fail(`reply ${reply}: the guest that joined mid-reply saw ${leak}`);
				}
				latecomer.socket.terminate();
			}
			guest.messages.splice(0); // what was checked is not kept
		}
		return {
			name: "streamed-secret reassembly by a guest",
			tried: `a view guest follows ${options.replies} replies streaming secrets of all ${SECRET_SHAPES.length} shapes redactSecrets knows, in pieces of 1 to 6 characters at random (seed ${options.seed}), as reply and thinking; every fifth runs a command printing a key in two writes; every fourth a second view guest joins mid-reply`,
			count: `${options.replies} replies, ${fmt(deltas)} deltas, ${fmt(frames)} frames`,
			failures,
			figure: `frames or joined deltas showing 8 characters of a secret: ${found.leaks}; blocks whose deltas do not join to the redacted whole: ${found.mismatches}; ${lateJoins} guests joined mid-reply`,
		};
	} finally {
		for (const guest of guests) guest.socket.terminate();
		host.terminate();
		await service.stop();
	}
}
