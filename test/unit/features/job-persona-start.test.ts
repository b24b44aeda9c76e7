/**
 * A persona job's start awaits its continuity (read off the event loop) and its end archives the transcript in
 * the background: a cancel that comes while the continuity is read ends the job cleanly without a session, the
 * continuity reaches the system prompt, and a failed archive is reported as a failed write always was.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { LoadedSession } from "../../../src/agent/runtime-manager.js";
import type { AgentProfile, SessionObserver } from "../../../src/agent/types.js";
import { type AgentDefinition, TASK_AGENT } from "../../../src/features/jobs/definitions.js";
import { JobService, type PersonaAgents } from "../../../src/features/jobs/job-service.js";
import type { Job } from "../../../src/features/jobs/schemas.js";

const PERSONA: AgentDefinition = { name: "mentor", description: "Guides", source: "persona", systemPrompt: "You are the mentor." };

/** A job service over a fake runtime whose child sessions end their run as soon as they are prompted. */
function harness(personas: PersonaAgents) {
	const created: AgentProfile[] = [];
	const warnings: string[] = [];
	const observers: SessionObserver[] = [];
	const session = (id: string): LoadedSession =>
		({
			id,
			lastUsed: 0,
			handle: {
				cwd: "/project",
				sessionFile: `/sessions/${id}.jsonl`,
				isBusy: false,
				messages: () => [{ role: "assistant", stopReason: "stop", content: [{ type: "text", text: "done" }] }],
				prompt: async () => {
					queueMicrotask(() => {
						for (const observe of observers) observe(id, { kind: "event", event: { type: "agent_end" } });
					});
				},
				abort: async () => undefined,
				deliver: async () => undefined,
			},
		}) as unknown as LoadedSession;
	const parent = session("parent");
	let children = 0;
	const jobs = new JobService({
		runtime: {
			create: async ({ profile }) => {
				created.push(profile);
				return session(`child-${++children}`);
			},
			get: async () => parent,
			peek: () => parent,
			observe: (observer) => {
				observers.push(observer);
				return () => undefined;
			},
			shuttingDown: false,
		},
		store: { load: () => [], save: () => undefined, saveOutput: () => undefined, output: () => undefined, forget: () => undefined },
		publish: () => undefined,
		limits: () => ({ maxConcurrency: 4, maxDepth: 2, maxKept: 50, maxTurns: 10, timeoutSeconds: 60 }),
		catalog: () => [TASK_AGENT],
		personas,
		warn: (line) => warnings.push(line),
	});
	const finished = (id: string) =>
		new Promise<Job>((resolve) => {
			const stop = jobs.watch((job) => {
				if (job.id === id && ["completed", "failed", "cancelled"].includes(job.status)) {
					stop();
					resolve(job);
				}
			});
		});
	return { jobs, created, warnings, finished };
}

function personas(overrides: Partial<PersonaAgents>): PersonaAgents {
	return {
		resolve: (name) => (name === PERSONA.name ? { definition: PERSONA, root: "/personas/mentor" } : undefined),
		continuity: async () => undefined,
		archive: async () => undefined,
		catalog: () => [],
		...overrides,
	};
}

test("a cancel that comes while a persona's continuity is read ends the job cleanly, before any session", async () => {
	let release!: (text: string) => void;
	const { jobs, created, finished } = harness(personas({ continuity: () => new Promise((resolve) => (release = resolve)) }));
	const [job] = await jobs.spawn("parent", { task: "think", agent: "mentor" });
	assert.equal(jobs.job(job!.id).status, "running", "it started: its continuity is being read");
	const done = finished(job!.id);
	assert.deepEqual(jobs.cancel([job!.id]), [job!.id]);
	release("Your previous runs, most recent last (1 messages):\nuser: earlier");
	const ended = await done;
	assert.equal(ended.status, "cancelled");
	assert.equal(ended.error, "Cancelled before it started");
	assert.equal(ended.sessionId, undefined);
	assert.equal(created.length, 0, "no session was created for it");
	assert.deepEqual(jobs.unfinished("parent"), []);
});

test("the continuity read asynchronously reaches the run's system prompt; a failed archive is reported", async () => {
	const archived: string[] = [];
	const { jobs, created, warnings, finished } = harness(
		personas({
			continuity: async (root) => `Your previous runs, most recent last (1 messages):\nuser: from ${root}`,
			archive: async (root, jobId, file) => {
				archived.push(`${root} ${jobId} ${file}`);
				throw new Error("/personas/mentor/sessions/x.jsonl could not be written (ENOSPC); it was left as it was");
			},
		}),
	);
	const [job] = await jobs.spawn("parent", { task: "think", agent: "mentor" });
	const ended = await finished(job!.id);
	assert.equal(ended.status, "completed");
	assert.equal(created[0]!.systemPrompt, "You are the mentor.\n\nYour previous runs, most recent last (1 messages):\nuser: from /personas/mentor");
	assert.deepEqual(archived, [`/personas/mentor ${job!.id} /sessions/child-1.jsonl`]);
	await new Promise((resolve) => setImmediate(resolve));
	assert.deepEqual(warnings, ["jobs: /personas/mentor/sessions/x.jsonl could not be written (ENOSPC); it was left as it was"]);
});
