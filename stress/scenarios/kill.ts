/**
 * kill -9 at random moments while prompts are being sent and answered. After each kill skiff starts again
 * with `--continue`: every prompt ever acknowledged must be in the session (get_messages and the file), and
 * every line of every session file must parse. A torn last line right after a kill is allowed (the write
 * was cut), and is counted: start-up repairs it.
 */
import { readSessionFiles, userTexts } from "../../test/support/session-files.js";
import { StressClient } from "../client.js";
import { fmt, type ScenarioResult } from "../result.js";
import { startService } from "../service.js";

export interface KillOptions {
	kills: number;
}

/** The kill comes this long (uniformly random, ms) after the client starts sending prompts. */
const KILL_WINDOW_MS = [30, 1_200] as const;

export async function killNine(options: KillOptions): Promise<ScenarioResult> {
	// A context window no run here fills: the session is never compacted, so get_messages shows every prompt.
	const service = await startService({ args: ["--session-id", "kill-nine"], contextWindow: 10_000_000 });
	const failures: string[] = [];
	const acknowledged: string[] = [];
	let tornAfterKill = 0;
	let promptsSent = 0;
	let lostTotal = 0;
	let unparsableTotal = 0;
	const killedDuring = { idle: 0, streaming: 0, awaitingAck: 0 };
	try {
		for (let round = 1; round <= options.kills; round++) {
			const client = await StressClient.connect(service.skiff.wsUrl);
			let phase: keyof typeof killedDuring = "idle";
			let ended = false;
			client.onEvent = (event) => {
				if (event.type === "agent_end") ended = true;
			};
			const killAt = KILL_WINDOW_MS[0] + Math.random() * (KILL_WINDOW_MS[1] - KILL_WINDOW_MS[0]);
			const killed = new Promise<void>((resolve) =>
				setTimeout(() => {
					killedDuring[phase]++;
					service.skiff.child.kill("SIGKILL");
					resolve();
				}, killAt),
			);
			let dead = false;
			void killed.then(() => (dead = true));
			for (let j = 1; !dead; j++) {
				// Short replies and long ones, so kills land while a prompt, a reply or nothing is being written.
				const text = `${Math.random() < 0.3 ? "BENCH 400 20" : `REPLY answer ${round}.${j}`}\nkill round ${round} prompt ${j}`;
				ended = false;
				phase = "awaitingAck";
				promptsSent++;
				const response = await Promise.race([client.request({ type: "prompt", message: text }), killed.then(() => undefined)]);
				if (!response) break;
				if (response.success) acknowledged.push(text);
				else if (!dead) failures.push(`round ${round}: prompt refused: ${response.error}`);
				phase = "streaming";
				while (!ended && !dead) await new Promise((resolve) => setTimeout(resolve, 5));
				phase = "idle";
			}
			await killed;
			await service.skiff.stop("SIGKILL"); // resolves once it has exited
			client.terminate();
			tornAfterKill += readSessionFiles(service.agentDir).filter((f) => f.unparsable.length > 0 || !f.endsWithNewline).length;

			await service.restart(["--continue"]);
			const reader = await StressClient.connect(service.skiff.wsUrl);
			const state = await reader.ok({ type: "get_state" });
			const { messages } = await reader.ok({ type: "get_messages" });
			reader.close();
			if (state.sessionId !== "kill-nine") failures.push(`round ${round}: --continue opened ${state.sessionId}`);
			const present = new Set(userTexts(messages));
			const lost = acknowledged.filter((text) => !present.has(text));
			lostTotal = Math.max(lostTotal, lost.length);
			if (lost.length > 0) failures.push(`round ${round}: ${lost.length} acknowledged prompts missing, e.g. ${JSON.stringify(lost[0])}`);
			for (const file of readSessionFiles(service.agentDir)) {
				unparsableTotal += file.unparsable.length;
				if (file.unparsable.length > 0) failures.push(`round ${round}: ${file.path} lines ${file.unparsable.join(",")} do not parse`);
				const fileTexts = new Set(file.userTexts);
				const missing = acknowledged.filter((text) => !fileTexts.has(text));
				if (missing.length > 0) failures.push(`round ${round}: ${missing.length} acknowledged prompts not in ${file.path}`);
			}
		}
		return {
			name: "kill -9",
			tried: `SIGKILL at a random moment (${KILL_WINDOW_MS[0]}–${fmt(KILL_WINDOW_MS[1])} ms into a stream of prompts, short replies and 400-delta ones), then restart with --continue and check the session and its file`,
			count: `${options.kills} kills, ${fmt(promptsSent)} prompts sent, ${fmt(acknowledged.length)} acknowledged`,
			failures: failures.slice(0, 10),
			figure: `acknowledged prompts lost: ${lostTotal}; lines that do not parse after a restart: ${unparsableTotal}; kills while awaiting an ack ${killedDuring.awaitingAck}, while streaming ${killedDuring.streaming}, between prompts ${killedDuring.idle}; torn last line found right after a kill (repaired at start-up, original kept) ${tornAfterKill} time(s)`,
		};
	} finally {
		await service.stop();
	}
}
