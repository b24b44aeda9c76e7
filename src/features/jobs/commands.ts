/**
 * The jobs' commands, addressed to a session by the envelope's `sessionId` (the primary without one): the jobs
 * it spawned (and theirs), the agent catalog, spawning, cancelling, and a job's output and transcript.
 */
import { Type } from "typebox";
import { defineCommand, NoFields } from "../../protocol/command.js";
import { MessageSchema } from "../../protocol/schemas/messages.js";
import { messagesOf } from "../../protocol/snapshot.js";
import type { Static } from "typebox";

type Message = Static<typeof MessageSchema>;
import type { JobService } from "./job-service.js";
import { AgentCatalogEntrySchema, JobLimitsSchema, JobSchema, SpawnedSchema, TaskArgsProperties } from "./schemas.js";
import type { ServiceKey } from "../../protocol/service-key.js";

const JobIdSchema = Type.String({ minLength: 1, maxLength: 80, description: "A job id (job_list)." });

export function jobCommands(jobs: ServiceKey<JobService>) {
	return [
		defineCommand({
			name: "job_list",
			summary:
				"The jobs the session spawned and, transitively, the jobs of its jobs (newest first), the agents it may spawn " +
				"(personas first; a definition that does not parse is listed with its `error`) and the limits in force.",
			params: NoFields,
			result: Type.Object({
				jobs: Type.Array(JobSchema),
				agents: Type.Array(AgentCatalogEntrySchema),
				limits: JobLimitsSchema,
			}),
			handler: async (_params, context) => {
				const session = await context.session();
				return { jobs: context.service(jobs).list(session.id), agents: context.service(jobs).catalog(session.handle.cwd), limits: context.service(jobs).limits() };
			},
		}),
		defineCommand({
			name: "task_spawn",
			summary:
				"Spawns jobs for the session, as its `task` tool does: one `task` (optionally with `agent`), or `tasks` (a batch " +
				"of up to 16) with a shared `context`. Answers at once with the queued jobs; results reach the session as a " +
				"hidden `job_result` message and a visible `job_card` message, and wake it when idle. Emits `job_updated`.",
			params: Type.Object(TaskArgsProperties, { additionalProperties: false }),
			result: SpawnedSchema,
			handler: async (params, context) => ({ jobs: await context.service(jobs).spawn((await context.session()).id, params) }),
		}),
		defineCommand({
			name: "job_cancel",
			summary:
				"Cancels jobs (and the jobs they spawned); without `jobIds`, every unfinished job of the session. A queued job " +
				"is cancelled at once, a running one once its child has stopped. Unknown ids fail the whole command.",
			params: Type.Object(
				{ jobIds: Type.Optional(Type.Array(JobIdSchema, { minItems: 1, maxItems: 256 })) },
				{ additionalProperties: false },
			),
			result: Type.Object({ cancelled: Type.Array(Type.String(), { description: "The jobs being cancelled (finished ones are left out)." }) }),
			handler: async ({ jobIds }, context) => {
				const ids = jobIds ?? context.service(jobs).unfinished((await context.session()).id);
				return { cancelled: context.service(jobs).cancel(ids) };
			},
		}),
		defineCommand({
			name: "job_output",
			summary: "A job and, once it has finished, its whole output (a result not given with `yield` starts with a note saying so).",
			params: Type.Object({ jobId: JobIdSchema }, { additionalProperties: false }),
			result: Type.Object({ job: JobSchema, output: Type.Optional(Type.String()) }),
			handler: ({ jobId }, context) => {
				const output = context.service(jobs).output(jobId);
				return { job: context.service(jobs).job(jobId), ...(output !== undefined ? { output } : {}) };
			},
		}),
		defineCommand({
			name: "job_transcript",
			summary:
				"The transcript of a job's child session (loading it if needed), and the seq it matches; the client then " +
				"follows that session's events, so the transcript streams on. Refused (`conflict`) before the job has started.",
			params: Type.Object({ jobId: JobIdSchema }, { additionalProperties: false }),
			result: Type.Object({
				jobId: Type.String(),
				sessionId: Type.String({ description: "The child session: subscribe to it, or address it like any session." }),
				messages: Type.Array(MessageSchema),
				streaming: Type.Optional(MessageSchema),
				running: Type.Boolean(),
				seq: Type.Integer({ description: "The child session's seq this transcript matches." }),
			}),
			handler: async ({ jobId }, context) => {
				const session = await context.service(jobs).childSession(jobId);
				context.client.follow(session.id);
				const streaming = session.handle.streamingMessage();
				return {
					jobId,
					sessionId: session.id,
					messages: messagesOf(session),
					...(streaming ? { streaming: streaming as unknown as Message } : {}),
					running: session.handle.isBusy,
					seq: context.streams.hub(session.id).seq,
				};
			},
		}),
	];
}
