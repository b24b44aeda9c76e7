/**
 * The disk-fault scenario, run inside a private mount namespace (see disk-namespace.ts, which starts it with
 * `unshare`): mounts a small tmpfs on the folder it is given, puts skiff's agent directory on it, then makes
 * that disk full (a filler file) or read-only (`mount -o remount,ro`) while skiff runs, and records what the
 * clients saw. It asserts nothing: it prints one line `DISK-SCENARIO-RESULT <json>` (a DiskScenarioResult)
 * for the caller to judge. The fake model runs here too, so a reply can be held until the disk has changed.
 *
 *   node --import tsx test/support/disk-scenario.ts '{"fault":"full","mountDir":"/tmp/x"}'
 */
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { DiskScenarioArgs, DiskScenarioResult, PromptOutcome } from "./disk-namespace.js";
import { RESULT_PREFIX } from "./disk-namespace.js";
import { startFakeOpenAi, writeFakeModelsJson } from "./fake-openai.js";
import { readSessionFiles, userTexts } from "./session-files.js";
import { type SkiffProcess, startSkiff } from "./skiff-process.js";
import { TestClient } from "./ws-client.js";

/** The tmpfs: room for models.json and a few sessions, small enough to fill in a moment. */
const TMPFS_SIZE = "1m";
/** Larger than a memory page, so that a prompt cannot fit in the free tail of the session file's last page. */
const PAD = `\n${"p".repeat(16 * 1024)}`;
/** Marks the prompt whose model request is held until the disk is read-only. */
const HOLD_MARK = "hold-this-reply";
const WAIT_MS = 15_000;

const args = JSON.parse(process.argv[2] ?? "{}") as DiskScenarioArgs;
const result: DiskScenarioResult = {
	fault: args.fault,
	acknowledged: [],
	refused: [],
	followerEvents: [],
	pings: [],
	firstRun: { stderr: "", exitCode: null },
	beforeRestart: [],
	afterRestart: { userTexts: [], files: [], stderr: "", exitCode: null },
};

function emit(): void {
	process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
}

function mount(...options: string[]): void {
	execFileSync("mount", options, { stdio: ["ignore", "ignore", "pipe"] });
}

/** Remounts the tmpfs; retried while a write in flight keeps it busy (EBUSY). */
async function remount(mode: "ro" | "rw"): Promise<void> {
	for (let attempt = 1; ; attempt++) {
		try {
			mount("-o", `remount,${mode}`, args.mountDir);
			return;
		} catch (error) {
			if (attempt >= 50) throw error;
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
	}
}

/** Writes a filler file until the disk refuses more (ENOSPC); returns its path. */
function fillDisk(): string {
	const path = join(args.mountDir, "filler");
	const fd = openSync(path, "w");
	try {
		for (const size of [64 * 1024, 4096, 1]) {
			const chunk = Buffer.alloc(size, 0x66);
			for (;;) {
				try {
					writeSync(fd, chunk);
				} catch (error) {
					if ((error as NodeJS.ErrnoException).code === "ENOSPC") break;
					throw error;
				}
			}
		}
	} finally {
		closeSync(fd);
	}
	return path;
}

async function main(): Promise<void> {
	try {
		mount("-t", "tmpfs", "-o", `size=${TMPFS_SIZE},mode=0700`, "tmpfs", args.mountDir);
	} catch (error) {
		result.setupError = `mount -t tmpfs on ${args.mountDir} failed: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`;
		return;
	}
	const agentDir = join(args.mountDir, "agent");
	const cwd = join(args.mountDir, "project");
	mkdirSync(cwd, { recursive: true });

	let releaseHeld: () => void = () => {};
	const held = new Promise<void>((resolve) => (releaseHeld = resolve));
	let heldArrived: () => void = () => {};
	const heldRequest = new Promise<void>((resolve) => (heldArrived = resolve));
	const model = await startFakeOpenAi({
		onRequest: async (request) => {
			if (!JSON.stringify(request.body?.messages ?? []).includes(HOLD_MARK)) return;
			heldArrived();
			await held;
		},
	});
	writeFakeModelsJson(agentDir, model.url);

	const running: SkiffProcess[] = [];
	try {
		const skiff = await startSkiff({ agentDir, cwd, args: ["--model", "fake/fake-model"] });
		running.push(skiff);
		await skiff.ready;
		const driver = await TestClient.connect(skiff.wsUrl);
		const follower = await TestClient.connect(skiff.wsUrl);
		await follower.ok({ type: "subscribe" });

		/** Sends a prompt; an acknowledged one is remembered and its run awaited (unless `wait` is false). */
		const prompt = async (label: string, extra = "", wait = true): Promise<PromptOutcome> => {
			const text = `REPLY answer ${label}\nprompt ${label}${extra}`;
			const from = driver.events.length;
			const response = await driver.request({ type: "prompt", message: text }, WAIT_MS);
			if (response.success) {
				result.acknowledged.push(text);
				if (wait) await driver.waitForEvent((e) => e.type === "agent_end", WAIT_MS, from);
			}
			return { label, text, success: response.success, error: response.error };
		};
		const ping = async () => {
			const sent = performance.now();
			const response = await driver.request({ type: "ping" }, WAIT_MS);
			result.pings.push({ success: response.success, ms: performance.now() - sent });
		};
		const followerSaw = (type: string) => follower.waitForEvent((e) => e.type === type, WAIT_MS).then(() => undefined);
		const noteFollower = () => {
			result.followerEvents = follower.events
				.filter((e) => e.type === "recording_failed" || e.type === "recording_restored")
				.map((e) => ({ type: e.type, code: e.code, error: e.error }));
		};

		await prompt("A");
		if (args.fault === "full") {
			const filler = fillDisk();
			result.refused.push(await prompt("B", PAD));
			await followerSaw("recording_failed");
			await ping();
			result.refused.push(await prompt("B2", PAD));
			await ping();
			unlinkSync(filler);
		} else {
			// Mid-run: the prompt is recorded, then the disk turns read-only before the reply is written.
			const from = driver.events.length;
			const outcome = await prompt(`C ${HOLD_MARK}`, "", false);
			result.heldPrompt = outcome;
			await heldRequest;
			await remount("ro");
			releaseHeld();
			await driver.waitForEvent((e) => e.type === "agent_end", WAIT_MS, from);
			await followerSaw("recording_failed");
			await ping();
			result.refused.push(await prompt("D"));
			await ping();
			await remount("rw");
		}
		result.recovered = await prompt("E");
		// Whether or not the prompt was acknowledged, the write it caused should end the failure.
		await followerSaw("recording_restored").catch(() => undefined);
		result.afterRecovery = await prompt("F");
		noteFollower();
		driver.close();
		follower.close();

		result.firstRun.exitCode = await skiff.stop("SIGTERM");
		result.firstRun.stderr = skiff.stderr();
		result.beforeRestart = readSessionFiles(agentDir);

		const again = await startSkiff({ agentDir, cwd, args: ["--model", "fake/fake-model", "--continue"] });
		running.push(again);
		await again.ready;
		const reader = await TestClient.connect(again.wsUrl);
		const { messages } = await reader.ok({ type: "get_messages" }, WAIT_MS);
		result.afterRestart.userTexts = userTexts(messages);
		result.afterRestart.assistantTexts = messages
			.filter((m: { role?: string }) => m.role === "assistant")
			.map((m: { content?: unknown }) => JSON.stringify(m.content));
		reader.close();
		result.afterRestart.exitCode = await again.stop("SIGTERM");
		result.afterRestart.stderr = again.stderr();
		result.afterRestart.files = readSessionFiles(agentDir);
	} catch (error) {
		result.failure = error instanceof Error ? (error.stack ?? error.message) : String(error);
		result.firstRun.stderr ||= running[0]?.stderr() ?? "";
	} finally {
		releaseHeld();
		for (const skiff of running) if (skiff.child.exitCode === null) await skiff.stop("SIGKILL");
		await model.close();
	}
}

await main();
emit();
process.exit(0);
