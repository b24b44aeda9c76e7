/**
 * The agent directory on a real disk that fills up or turns read-only while skiff runs: a prompt that cannot
 * be recorded is refused with the reason and never acknowledged, followers hear `recording_failed`, the
 * service keeps answering, recording resumes once the disk is writable, and after a restart every
 * acknowledged prompt is there and every line of the session file parses. The scenario runs in a private
 * mount namespace on a small tmpfs (test/support/disk-scenario.ts); when that cannot be made, the test fails.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type DiskScenarioResult, runDiskScenario } from "../support/disk-namespace.js";

/** Asserts what both faults share; `code` is the errno the disk answers with, `reason` its words. */
function assertSurvived(result: DiskScenarioResult, code: string, reason: RegExp): void {
	assert.equal(result.failure, undefined, `the scenario stopped early:\n${result.failure}\nstderr:\n${result.firstRun.stderr}`);

	assert.ok(result.refused.length > 0);
	for (const refused of result.refused) {
		assert.equal(refused.success, false, `prompt ${refused.label} was acknowledged although the disk was ${result.fault}`);
		assert.match(refused.error ?? "", reason, `prompt ${refused.label}: the error names the problem`);
		assert.ok(!result.acknowledged.includes(refused.text));
	}
	const failed = result.followerEvents.find((e) => e.type === "recording_failed");
	assert.ok(failed, `a follower got recording_failed: ${JSON.stringify(result.followerEvents)}`);
	assert.equal(failed.code, code);
	assert.match(failed.error ?? "", reason);
	assert.ok(result.pings.length > 0 && result.pings.every((p) => p.success), "ping is answered while the disk is faulty");

	assert.equal(result.afterRecovery?.success, true, `the second prompt once the disk is writable again is acknowledged: ${result.afterRecovery?.error}`);
	assert.equal(result.recovered?.success, true, `the first prompt once the disk is writable again is acknowledged: ${result.recovered?.error}`);
	assert.deepEqual(
		result.followerEvents.map((e) => e.type),
		["recording_failed", "recording_restored"],
		"one failure, then one recovery",
	);

	assert.equal(result.firstRun.exitCode, 0);
	assert.equal(result.afterRestart.exitCode, 0);
	for (const text of result.acknowledged) {
		assert.ok(result.afterRestart.userTexts.includes(text), `acknowledged prompt ${JSON.stringify(text.slice(0, 40))} is in get_messages after restart`);
	}
	for (const files of [result.beforeRestart, result.afterRestart.files]) {
		assert.equal(files.length, 1, "one session file");
		for (const file of files) {
			assert.deepEqual(file.unparsable, [], `every line of ${file.path} parses`);
			assert.ok(file.endsWithNewline, `${file.path} has no torn last line`);
		}
	}
	assert.doesNotMatch(result.afterRestart.stderr, /repaired|set aside/, "the file needed no repair");
}

test("a full disk: prompts are refused with ENOSPC, and nothing acknowledged is lost", async () => {
	const result = await runDiskScenario("full");
	assertSurvived(result, "ENOSPC", /no space left|ENOSPC/i);
});

test("a disk remounted read-only under a reply: EROFS is reported, the reply is recorded once it is writable", async () => {
	const result = await runDiskScenario("readonly");
	assertSurvived(result, "EROFS", /read-only|EROFS/i);
	assert.equal(result.heldPrompt?.success, true, "the prompt recorded before the remount was acknowledged");
	assert.ok(
		result.afterRestart.assistantTexts?.some((text) => text.includes(`answer ${result.heldPrompt!.label}`)),
		"the reply that could not be written while read-only was written later",
	);
});
