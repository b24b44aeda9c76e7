/**
 * Several skiff processes on one agent directory (docs/reliability.md, "Two processes on one agent
 * directory"). Each round starts three listeners and one `--mode rpc` at the same instant: exactly one may
 * run, and every other must exit 1 naming it, without a "listening" line. While the one that runs streams a
 * reply and runs a job, a latecomer is refused and the run and the job end as they would alone. Then the
 * winner is stopped, cleanly (the owner record must be gone, with no file of the takeover left) or by
 * SIGKILL (its record stays behind, stale, for the next round to take over).
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFakeModelsJson } from "../../test/support/fake-openai.js";
import { type RpcProcess, startRpcProcess } from "../../test/support/rpc-process.js";
import { launchSkiff, type SkiffProcess, tempDir } from "../../test/support/skiff-process.js";
import { StressClient } from "../client.js";
import { startFakeModelProcess } from "../fake-model.js";
import type { ScenarioResult } from "../result.js";

export interface TwoProcessesOptions {
	rounds: number;
}

const ARGS = ["--model", "fake/fake-model"];
const LISTENERS = 3;
const OWNER_FILE = "skiff.lock";
const REFUSAL = /^skiff: another skiff \(pid (\d+), ([^)]*)\) uses the agent directory (.*); stop it, or set SKIFF_AGENT_DIR to another directory\n$/;

type Winner = { kind: "listener"; skiff: SkiffProcess } | { kind: "rpc"; rpc: RpcProcess };

export async function twoProcesses(options: TwoProcessesOptions): Promise<ScenarioResult> {
	const model = await startFakeModelProcess();
	const agentDir = tempDir("skiff-stress-two-");
	const cwd = tempDir("skiff-stress-two-cwd-");
	writeFakeModelsJson(agentDir, model.url);
	const failures: string[] = [];
	const won = { listener: 0, rpc: 0 };
	let refused = 0;
	let takenOver = 0;
	let jobsCompleted = 0;
	/** The pid in the record a SIGKILL left behind, to be taken over by the next round. */
	let stalePid: number | undefined;
	const owner = () => JSON.parse(readFileSync(join(agentDir, OWNER_FILE), "utf8")) as { pid: number };
	/** A refused process's stderr must name the winner (by pid; its address may not be recorded yet). */
	const checkRefusal = (round: number, who: string, code: number | null, stderr: string, winnerPid: number) => {
		refused++;
		const match = REFUSAL.exec(stderr);
		if (code !== 1 || !match) failures.push(`round ${round}: ${who} exited ${code} with ${JSON.stringify(stderr.slice(0, 300))}`);
		else if (Number(match[1]) !== winnerPid || match[3] !== agentDir) failures.push(`round ${round}: ${who} named ${match[1]} in ${match[3]}, not ${winnerPid}`);
	};
	try {
		for (let round = 1; round <= options.rounds; round++) {
			// The --mode rpc is spawned first in half the rounds (both stop kinds), last in the others.
			const rpcFirst = round % 4 >= 2;
			const early = rpcFirst ? startRpcProcess({ agentDir, cwd, args: ARGS }) : undefined;
			const listeners = Array.from({ length: LISTENERS }, () => launchSkiff({ agentDir, cwd, args: ARGS }));
			const rpc = early ?? startRpcProcess({ agentDir, cwd, args: ARGS });
			const rpcRuns = rpc.request({ type: "get_state" }).then(
				() => true,
				() => false,
			);
			const outcomes = await Promise.all(listeners);
			const rpcRan = await Promise.race([rpcRuns, rpc.exited.then(() => false)]);
			const running = outcomes.flatMap((o) => ("listening" in o ? [o.listening] : []));
			const winners: Winner[] = [...running.map((skiff) => ({ kind: "listener" as const, skiff })), ...(rpcRan ? [{ kind: "rpc" as const, rpc }] : [])];
			if (winners.length !== 1) {
				failures.push(`round ${round}: ${winners.length} processes run on one agent directory`);
				for (const skiff of running) await skiff.stop("SIGKILL");
				rpc.child.kill("SIGKILL");
				await rpc.exited;
				rmSync(join(agentDir, OWNER_FILE), { force: true });
				continue;
			}
			const winner = winners[0]!;
			const winnerPid = winner.kind === "listener" ? winner.skiff.child.pid! : winner.rpc.child.pid!;
			won[winner.kind]++;
			if (owner().pid !== winnerPid) failures.push(`round ${round}: the record names ${owner().pid}, the winner is ${winnerPid}`);
			if (stalePid !== undefined) takenOver++;
			for (const [i, o] of outcomes.entries()) {
				if (!("exited" in o)) continue;
				checkRefusal(round, `listener ${i + 1}`, o.exited.code, o.exited.stderr, winnerPid);
				if (o.exited.stdout !== "") failures.push(`round ${round}: a refused listener printed ${JSON.stringify(o.exited.stdout)}`);
			}
			if (!rpcRan) checkRefusal(round, "--mode rpc", await rpc.exited, rpc.stderr(), winnerPid);

			// The winner works (a streamed reply, and for a listener a job) while a latecomer is refused.
			if (winner.kind === "listener") {
				const client = await StressClient.connect(winner.skiff.wsUrl);
				const events: any[] = [];
				client.onEvent = (event) => events.push(event);
				const { sessionId } = await client.ok({ type: "get_state" });
				const { jobs } = await client.ok({ type: "task_spawn", sessionId, task: `REPLY job of round ${round}` });
				await client.ok({ type: "prompt", sessionId, message: `BENCH 400 20\nround ${round}` });
				const late = await launchSkiff({ agentDir, cwd, args: ARGS });
				if ("listening" in late) {
					failures.push(`round ${round}: a latecomer started beside the winner`);
					await late.listening.stop("SIGKILL");
				} else checkRefusal(round, "the latecomer", late.exited.code, late.exited.stderr, winnerPid);
				const job = jobs[0].id as string;
				const settled = await until(() => events.find((e) => e.type === "job_updated" && e.job.id === job && !["queued", "running"].includes(e.job.status)));
				if (settled.job.status === "completed") jobsCompleted++;
				else failures.push(`round ${round}: the winner's job ended ${settled.job.status}: ${settled.job.error ?? ""}`);
				await until(() => events.some((e) => e.type === "agent_end" && e.sessionId === sessionId));
				client.close();
			} else {
				const from = winner.rpc.lines.length;
				await winner.rpc.request({ type: "prompt", message: `BENCH 400 20\nround ${round}` });
				const late = startRpcProcess({ agentDir, cwd, args: ARGS });
				checkRefusal(round, "the latecomer", await late.exited, late.stderr(), winnerPid);
				await winner.rpc.waitFor((line) => line.type === "agent_end", from);
			}

			// Stop it: cleanly on odd rounds, by SIGKILL on even ones.
			const clean = round % 2 === 1;
			if (winner.kind === "listener") await winner.skiff.stop(clean ? "SIGTERM" : "SIGKILL");
			else {
				if (clean) winner.rpc.child.stdin.end();
				else winner.rpc.child.kill("SIGKILL");
				await winner.rpc.exited;
			}
			const left = readdirSync(agentDir).filter((name) => name.startsWith(OWNER_FILE));
			if (clean && left.length > 0) failures.push(`round ${round}: a clean stop left ${left.join(", ")}`);
			if (!clean && (left.length !== 1 || owner().pid !== winnerPid)) failures.push(`round ${round}: SIGKILL left ${left.join(", ") || "nothing"}`);
			stalePid = clean ? undefined : winnerPid;
		}
	} finally {
		model.close();
		for (const dir of [agentDir, cwd]) rmSync(dir, { recursive: true, force: true });
	}
	return {
		name: "two processes",
		tried: `each round, ${LISTENERS} listeners and a --mode rpc started at the same instant on one agent directory; the one that runs streams a reply and (a listener) runs a job while a latecomer starts; then it is stopped, by SIGTERM or end of input on odd rounds, by SIGKILL on even ones (its stale record taken over by the next round)`,
		count: `${options.rounds} rounds, ${options.rounds * (LISTENERS + 2)} processes`,
		failures,
		figure: `exactly one ran in ${options.rounds - failures.filter((f) => f.includes("processes run")).length} of ${options.rounds} rounds (a listener ${won.listener} times, --mode rpc ${won.rpc}); ${refused} refused, each naming the one that ran; stale records taken over after SIGKILL: ${takenOver}; jobs completed beside a refused latecomer: ${jobsCompleted}`,
	};
}

/** Polls until `find` returns something (the scenario's own runs are bounded by the fake model's replies). */
async function until<T>(find: () => T | undefined | false): Promise<T> {
	for (const deadline = Date.now() + 60_000; ; ) {
		const found = find();
		if (found) return found;
		if (Date.now() > deadline) throw new Error("timed out waiting for the winner's run or job to end");
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}
