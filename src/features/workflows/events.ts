/** The workflows' event: sent to every loaded session after each change of a workflow (workflows are the service's). */
import { Type } from "typebox";
import { defineEvent } from "../../protocol/event.js";
import { WorkflowSchema } from "./schemas.js";

export const workflowUpdatedEvent = defineEvent(
	"workflow_updated",
	"A workflow changed: its status, its plan (as the supervisor makes it and as tasks finish), its supervisor's and " +
		"workers' activity, or its integration summary (files changed, insertions, deletions, conflicts). `removed`: it " +
		"was removed (workflow_remove) and is gone from workflow_list.",
	{
		workflow: WorkflowSchema,
		removed: Type.Optional(Type.Boolean()),
	},
);

export const workflowEvents = [workflowUpdatedEvent];
