/**
 * Damaged session files at start-up, through the real process: each kind of damage (test/support/
 * damaged-session.ts) is repaired or set aside with a warning that names the file, the history stays
 * visible, and the original bytes are kept, never overwritten.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { DAMAGE, jsonLines, MISSING_MESSAGE_LINES, questionText, sessionEntries, writeSessionText } from "../support/damaged-session.js";
import { startFakeOpenAi, writeFakeModelsJson, type FakeOpenAiServer } from "../support/fake-openai.js";
import { readSessionFile, userTexts } from "../support/session-files.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

const MESSAGES = 4;
let model: FakeOpenAiServer;

before(async () => {
	model = await startFakeOpenAi();
});

after(async () => {
	await model?.close();
});

interface Started {
	skiff: SkiffProcess;
	client: TestClient;
	agentDir: string;
	cwd: string;
	stop(): Promise<void>;
}

function freshDirs(): { agentDir: string; cwd: string } {
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	return { agentDir, cwd: tempDir() };
}

async function start(dirs: { agentDir: string; cwd: string }, args: string[]): Promise<Started> {
	const skiff = await startSkiff({ ...dirs, args: ["--model", "fake/fake-model", ...args] });
	await skiff.ready;
	const client = await TestClient.connect(skiff.wsUrl);
	return {
		...dirs,
		skiff,
		client,
		async stop() {
			client.close();
			assert.equal(await skiff.stop(), 0, skiff.stderr());
		},
	};
}

/** The `.damaged-…` files beside `path`. */
function keptCopies(path: string): string[] {
	return readdirSync(dirname(path))
		.filter((name) => name.startsWith(`${basename(path)}.damaged-`))
		.map((name) => join(dirname(path), name));
}

function assertNoCrashText(stderr: string): void {
	assert.doesNotMatch(stderr, /Cannot read properties|TypeError|is not a function/);
}

describe("damaged session files", { concurrency: true }, () => {
	test("a torn last line: the history is there, the original is kept, and a new prompt appends cleanly", async () => {
		const dirs = freshDirs();
		const text = DAMAGE.tornLastLine(sessionEntries("torn-tail", dirs.cwd, MESSAGES));
		const path = writeSessionText(dirs.agentDir, dirs.cwd, "torn-tail", text);
		const run = await start(dirs, ["--continue"]);
		assert.equal((await run.client.ok({ type: "get_state" })).sessionId, "torn-tail");
		const { messages } = await run.client.ok({ type: "get_messages" });
		assert.equal(messages.length, MESSAGES);
		const warning = run.skiff.stderr().split("\n").find((line) => line.includes(`${path}:6: `));
		assert.match(warning ?? "", /did not finish/, run.skiff.stderr());

		const from = run.client.events.length;
		await run.client.ok({ type: "prompt", message: "REPLY appended\nafter the torn line" });
		await run.client.waitForEvent((e) => e.type === "agent_end", 15_000, from);
		await run.stop();

		const file = readSessionFile(path);
		assert.deepEqual(file.unparsable, [], "every line parses");
		assert.ok(file.endsWithNewline);
		assert.deepEqual(file.userTexts, [questionText("torn-tail", 0), questionText("torn-tail", 2), "REPLY appended\nafter the torn line"]);
		const [kept] = keptCopies(path);
		assert.ok(kept, "the original is kept beside the repaired file");
		assert.equal(readFileSync(kept, "utf8"), text);
	});

	test("a damaged first line: the file is set aside intact and --continue opens the next newest session", async () => {
		const dirs = freshDirs();
		const now = Date.now();
		writeSessionText(dirs.agentDir, dirs.cwd, "older-good", jsonLines(sessionEntries("older-good", dirs.cwd, MESSAGES)), now - 60_000);
		const damaged = DAMAGE.damagedFirstLine(sessionEntries("newer-bad", dirs.cwd, MESSAGES));
		const path = writeSessionText(dirs.agentDir, dirs.cwd, "newer-bad", damaged, now);
		const run = await start(dirs, ["--continue"]);
		assert.equal((await run.client.ok({ type: "get_state" })).sessionId, "older-good");
		assert.equal((await run.client.ok({ type: "get_messages" })).messages.length, MESSAGES);
		const stderr = run.skiff.stderr();
		await run.stop();

		assert.ok(!existsSync(path), "the damaged file is no longer a session file");
		const [kept] = keptCopies(path);
		assert.ok(kept, "renamed to .damaged-…");
		assert.ok(stderr.includes(path) && stderr.includes(kept!), `stderr names the file and where it went: ${stderr}`);
		assert.match(stderr, /set aside/);
		assert.ok(readFileSync(kept!).equals(Buffer.from(damaged)), "the original bytes are intact");
		assertNoCrashText(stderr);
	});

	test("a damaged first line in the only session: --continue starts a new session", async () => {
		const dirs = freshDirs();
		const damaged = DAMAGE.damagedFirstLine(sessionEntries("only-bad", dirs.cwd, MESSAGES));
		const path = writeSessionText(dirs.agentDir, dirs.cwd, "only-bad", damaged);
		const run = await start(dirs, ["--continue"]);
		assert.notEqual((await run.client.ok({ type: "get_state" })).sessionId, "only-bad");
		assert.deepEqual((await run.client.ok({ type: "get_messages" })).messages, []);
		const stderr = run.skiff.stderr();
		await run.stop();
		const [kept] = keptCopies(path);
		assert.ok(kept && stderr.includes(path), stderr);
		assert.ok(readFileSync(kept).equals(Buffer.from(damaged)));
	});

	test("entries without a message: start-up works and stderr names the file and lines", async () => {
		const dirs = freshDirs();
		const path = writeSessionText(dirs.agentDir, dirs.cwd, "no-message", DAMAGE.missingMessage(sessionEntries("no-message", dirs.cwd, MESSAGES)));
		const run = await start(dirs, ["--continue"]);
		assert.equal((await run.client.ok({ type: "get_state" })).sessionId, "no-message");
		const { messages } = await run.client.ok({ type: "get_messages" });
		assert.equal(messages.length, MESSAGES, "the intact messages all show");
		const stderr = run.skiff.stderr();
		await run.stop();
		for (const line of MISSING_MESSAGE_LINES) assert.ok(stderr.includes(`${path}:${line}: `), `stderr names ${path}:${line}: ${stderr}`);
		assertNoCrashText(stderr);
	});

	test("a broken parentId does not hide the history before it", async () => {
		const dirs = freshDirs();
		const path = writeSessionText(dirs.agentDir, dirs.cwd, "bad-parent", DAMAGE.brokenParentId(sessionEntries("bad-parent", dirs.cwd, MESSAGES)));
		const run = await start(dirs, ["--continue"]);
		const { messages } = await run.client.ok({ type: "get_messages" });
		assert.deepEqual(userTexts(messages), [questionText("bad-parent", 0), questionText("bad-parent", 2)]);
		const stderr = run.skiff.stderr();
		await run.stop();
		assert.ok(stderr.includes(`${path}:4: `), stderr);
	});

	for (const how of ["path", "id"] as const) {
		test(`a byte-order mark: the session opens by ${how}`, async () => {
			const dirs = freshDirs();
			const id = `bom-by-${how}`;
			const path = writeSessionText(dirs.agentDir, dirs.cwd, id, DAMAGE.byteOrderMark(sessionEntries(id, dirs.cwd, MESSAGES)));
			const run = await start(dirs, how === "path" ? ["--session", path] : ["--resume", id]);
			assert.equal((await run.client.ok({ type: "get_state" })).sessionId, id);
			assert.equal((await run.client.ok({ type: "get_messages" })).messages.length, MESSAGES);
			await run.stop();
			assert.deepEqual(readSessionFile(path).unparsable, []);
		});
	}
});
