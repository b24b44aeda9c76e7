/**
 * Disk faults and damaged files, reusing the integration tests' machinery: the disk-fault scenario
 * (test/support/disk-scenario.ts, a tmpfs in a private mount namespace that fills up or turns read-only under
 * a running skiff) a few rounds each, and the damaged-session test file (every kind of damage).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { type DiskFault, type DiskScenarioResult, runDiskScenario } from "../../test/support/disk-namespace.js";
import { REPO_ROOT } from "../../test/support/skiff-process.js";
import { fmt, maxOf, type ScenarioResult } from "../result.js";

const ROUNDS = 3;
const CODES: Record<DiskFault, string> = { full: "ENOSPC", readonly: "EROFS" };

/** What went wrong in one round, in words (empty: it held). */
function problems(result: DiskScenarioResult): string[] {
	const found: string[] = [];
	const code = CODES[result.fault];
	if (result.failure) found.push(`stopped early: ${result.failure.split("\n")[0]}`);
	for (const refused of result.refused) {
		if (refused.success) found.push(`prompt ${refused.label} acknowledged on a ${result.fault} disk`);
		else if (!(refused.error ?? "").includes(code)) found.push(`prompt ${refused.label} refused without naming ${code}: ${refused.error}`);
	}
	if (!result.followerEvents.some((e) => e.type === "recording_failed" && e.code === code)) found.push(`no recording_failed ${code} for followers`);
	if (!result.pings.every((p) => p.success)) found.push("a ping failed");
	if (!result.recovered?.success) found.push(`the first prompt after recovery was refused: ${result.recovered?.error?.replace(/ to \/\S+:/, ":")}`);
	if (!result.afterRecovery?.success) found.push(`the second prompt after recovery was refused: ${result.afterRecovery?.error}`);
	if (!result.followerEvents.some((e) => e.type === "recording_restored")) found.push("no recording_restored");
	const present = new Set(result.afterRestart.userTexts);
	const lost = result.acknowledged.filter((t) => !present.has(t));
	if (lost.length > 0) found.push(`${lost.length} acknowledged prompts missing after restart`);
	for (const file of [...result.beforeRestart, ...result.afterRestart.files]) {
		if (file.unparsable.length > 0 || !file.endsWithNewline) found.push(`${file.path} has a torn or unparsable line`);
	}
	return found;
}

export async function diskFaults(): Promise<ScenarioResult> {
	const failures = new Map<string, number>();
	let acknowledged = 0;
	let refused = 0;
	let lost = 0;
	let acknowledgedWhileFaulty = 0;
	const pings: number[] = [];
	for (const fault of ["full", "readonly"] as const) {
		for (let round = 0; round < ROUNDS; round++) {
			let result: DiskScenarioResult;
			try {
				result = await runDiskScenario(fault);
			} catch (error) {
				failures.set(`${fault}: ${String(error)}`, 1);
				continue;
			}
			acknowledged += result.acknowledged.length;
			refused += result.refused.length;
			acknowledgedWhileFaulty += result.refused.filter((r) => r.success).length;
			pings.push(...result.pings.map((p) => p.ms));
			const present = new Set(result.afterRestart.userTexts);
			lost += result.acknowledged.filter((text) => !present.has(text)).length;
			for (const problem of problems(result)) failures.set(`${fault}: ${problem}`, (failures.get(`${fault}: ${problem}`) ?? 0) + 1);
		}
	}
	return {
		name: "full and read-only disk",
		tried: `the agent dir on a 1 MiB tmpfs (private mount namespace) filled up (ENOSPC), or remounted read-only under a reply (EROFS), then writable again; restart with --continue (test/support/disk-scenario.ts)`,
		count: `${ROUNDS} rounds each; ${acknowledged} prompts acknowledged, ${refused} sent while faulty`,
		failures: [...failures].map(([problem, times]) => `${problem} (${times} of ${ROUNDS} rounds)`),
		figure: `prompts acknowledged while the disk was faulty: ${acknowledgedWhileFaulty}; ping while faulty max ${fmt(maxOf(pings), 1)} ms; acknowledged prompts lost after restart: ${lost}`,
	};
}

/** Runs test/integration/damaged-sessions.test.ts and reads its TAP summary. */
export async function damagedFiles(): Promise<ScenarioResult> {
	const file = join(REPO_ROOT, "test", "integration", "damaged-sessions.test.ts");
	const output = await new Promise<string>((resolve) => {
		let text = "";
		const child = spawn(process.execPath, ["--import", "tsx", "--test", "--test-reporter=tap", file], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
		child.stdout.on("data", (d) => (text += d));
		child.stderr.on("data", (d) => (text += d));
		child.on("exit", () => resolve(text));
	});
	const number = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, "m").exec(output)?.[1] ?? Number.NaN);
	const pass = number("pass");
	const fail = number("fail");
	const failing = [...output.matchAll(/^\s*not ok \d+ - (.*)$/gm)].map((m) => m[1]!).filter((name) => name !== "damaged session files");
	const failures = Number.isNaN(pass) ? ["the test file did not report"] : failing.map((name) => `failed: ${name}`);
	return {
		name: "damaged session files",
		tried: "torn last line, damaged first line (with an older session, and alone), entries without a message, broken parentId, byte-order mark (by path and by id), each at start-up of a real process (test/integration/damaged-sessions.test.ts)",
		count: `${Number.isNaN(pass) ? 0 : pass + fail} cases`,
		failures,
		figure: `${Number.isNaN(pass) ? 0 : pass} cases held: history kept, warnings name file and line, originals kept byte for byte`,
	};
}
