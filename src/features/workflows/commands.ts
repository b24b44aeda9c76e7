/**
 * The workflows' commands. Workflows belong to the service, not to one session: every session lists them all,
 * and every loaded session hears `workflow_updated` (a command makes its client follow the addressed session).
 * `workflow_create` runs for the addressed session (its jobs are that session's, in its directory).
 */
import { Type } from "typebox";
import { defineCommand, NoFields } from "../../protocol/command.js";
import { ISOLATIONS, MAX_OBJECTIVE_CHARS, WORKFLOW_NAME_PATTERN, type Workflow, WorkflowLimitsSchema, WorkflowSchema } from "./schemas.js";
import type { ServiceKey } from "../../protocol/service-key.js";
import type { WorkflowService } from "./workflow-service.js";

const WorkflowIdParams = Type.Object(
	{ workflowId: Type.String({ minLength: 1, maxLength: 80, description: "A workflow id (workflow_list)." }) },
	{ additionalProperties: false },
);
const WorkflowResult = Type.Object({ workflow: WorkflowSchema });

/** One action on one workflow, allowed only in the states the lifecycle names (else `conflict`, saying which are allowed). */
function action(workflows: ServiceKey<WorkflowService>, name: string, summary: string, run: (workflows: WorkflowService, id: string) => Promise<Workflow>) {
	return defineCommand({
		name,
		summary,
		params: WorkflowIdParams,
		result: WorkflowResult,
		handler: async ({ workflowId }, context) => {
			await context.session(); // the client follows the session, where workflow_updated arrives
			return { workflow: await run(context.service(workflows), workflowId) };
		},
	});
}

export function workflowCommands(workflows: ServiceKey<WorkflowService>) {
	return [
		defineCommand({
			name: "workflow_create",
			summary:
				"Creates a workflow for the session: a supervisor agent plans `objective` into a todo plan, jobs run its ready " +
				"tasks in a git worktree on the branch `skiff/workflow/<id>` (isolation `worktree`, the default; `none` runs them in " +
				"the session's directory, which need not be a repository), and the result is integrated back into the base " +
				"checkout by fast-forward or merge. Refused when the directory is not in a git repository (default isolation) " +
				"or its checkout has uncommitted changes; nothing is created then. Emits `workflow_updated`.",
			params: Type.Object(
				{
					name: Type.String({ pattern: WORKFLOW_NAME_PATTERN, description: "A short name: letters, digits, space, `_`, `.`, `-` (at most 64)." }),
					objective: Type.String({ minLength: 1, maxLength: MAX_OBJECTIVE_CHARS, description: "What the workflow is to achieve." }),
					isolation: Type.Optional(Type.Enum(ISOLATIONS, { description: "`worktree` (default) or `none`." })),
				},
				{ additionalProperties: false },
			),
			result: WorkflowResult,
			handler: async (params, context) => {
				const session = await context.session();
				return { workflow: await context.service(workflows).create(session.id, session.handle.cwd, params) };
			},
		}),
		defineCommand({
			name: "workflow_list",
			summary: "Every workflow of the service, newest first, with the actions each allows now, and the limits in force.",
			params: NoFields,
			result: Type.Object({ workflows: Type.Array(WorkflowSchema), limits: WorkflowLimitsSchema }),
			handler: async (_params, context) => {
				await context.session(); // the client follows the session, where workflow_updated arrives
				return { workflows: context.service(workflows).list(), limits: context.service(workflows).limits() };
			},
		}),
		defineCommand({
			name: "workflow_get",
			summary: "One workflow: status, plan, supervisor, workers, integration summary and the actions allowed now.",
			params: WorkflowIdParams,
			result: WorkflowResult,
			handler: async ({ workflowId }, context) => {
				await context.session(); // the client follows the session, where workflow_updated arrives
				return { workflow: context.service(workflows).get(workflowId) };
			},
		}),
		action(workflows, "workflow_pause", "Pauses a planning or running workflow: its jobs are cancelled and their tasks go back to pending.", (service, id) => service.pause(id)),
		action(
			workflows,
			"workflow_resume",
			"Resumes a paused workflow (also one the service stopped under): it plans again when its plan was not finished, else runs the open tasks.",
			(service, id) => service.resume(id),
		),
		action(
			workflows,
			"workflow_cancel",
			"Cancels a workflow that is not finished (or a conflicted one): its jobs stop; its branch and worktree stay until workflow_remove.",
			(service, id) => service.cancel(id),
		),
		action(
			workflows,
			"workflow_integrate",
			"Integrates a paused workflow's finished work, or tries again after a conflict. A conflict is reported with its files and nothing is merged.",
			(service, id) => service.integrate(id),
		),
		defineCommand({
			name: "workflow_remove",
			summary:
				"Removes a finished (completed, failed, cancelled or conflicted) workflow: its record and worktree, and its branch " +
				"when the base took it; `branchKept` names a branch left so that no work is lost. Emits `workflow_updated` with `removed`.",
			params: WorkflowIdParams,
			result: Type.Object({ workflowId: Type.String(), branchKept: Type.Optional(Type.String()) }),
			handler: ({ workflowId }, context) => context.service(workflows).remove(workflowId),
		}),
	];
}
