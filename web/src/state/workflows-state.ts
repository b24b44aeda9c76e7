/**
 * The Workflows panel's state: every workflow of the service (workflows are the service's, not a session's),
 * loaded once with workflow_list and kept current by `workflow_updated` (no polling), the one opened in detail,
 * and the commands the panel sends.
 */
import type { SkiffEvent, Workflow } from "../../../src/client/index.js";
import { type PanelContext, runCommand } from "./panel-context";

export type WorkflowAction = Workflow["actions"][number];
export type Isolation = Workflow["isolation"];

/** The command each action sends. */
const ACTION_COMMANDS = {
	pause: "workflow_pause",
	resume: "workflow_resume",
	cancel: "workflow_cancel",
	integrate: "workflow_integrate",
	remove: "workflow_remove",
} as const satisfies Record<WorkflowAction, string>;

export class WorkflowsState {
	/** Newest first, as workflow_list answers. */
	workflows: Workflow[] = [];
	loaded = false;
	/** The workflow shown in detail. */
	openId: string | undefined;
	/** A note after the last action (e.g. the branch remove kept), shown in the list. */
	note: string | undefined;
	/** Bumped on every change. */
	version = 0;

	constructor(private readonly context: PanelContext) {
		context.client.onEvent((event) => this.onEvent(event));
		// Changes made while the connection was down are not replayed for every workflow: load them again.
		context.client.onStatus(({ status }) => {
			if (status === "connected" && this.loaded) void this.refresh();
		});
	}

	/** Loads every workflow (through the current session, where workflow_updated arrives). */
	async refresh(): Promise<void> {
		const sessionId = this.context.sessionId();
		if (!sessionId) return;
		const list = await runCommand(this.context, "workflow_list", "workflow_list", {}, sessionId);
		if (!list) return;
		// An event that arrived while the answer was on its way may be newer than the answer's copy.
		const known = new Map(this.workflows.map((w) => [w.id, w]));
		this.workflows = list.data.workflows.map((w) => {
			const mine = known.get(w.id);
			return mine && mine.updatedAt > w.updatedAt ? mine : w;
		});
		this.loaded = true;
		this.touch();
	}

	/** Starts a workflow in the current session's directory; false (and a toast saying why) when refused. */
	async create(name: string, objective: string, isolation: Isolation): Promise<boolean> {
		const created = await runCommand(this.context, "workflow_create", "workflow_create", { name, objective, isolation }, this.context.sessionId());
		if (!created) return false;
		this.upsert(created.data.workflow);
		this.open(created.data.workflow.id);
		return true;
	}

	/** Sends one of the actions the workflow allows now. */
	async act(workflowId: string, action: WorkflowAction): Promise<void> {
		const command = ACTION_COMMANDS[action];
		if (command === "workflow_remove") {
			const removed = await runCommand(this.context, command, command, { workflowId }, this.context.sessionId());
			if (!removed) return;
			this.drop(workflowId);
			const { branchKept } = removed.data;
			this.note = branchKept ? `Removed; its branch ${branchKept} was kept so that no work is lost.` : undefined;
			this.touch();
			return;
		}
		const changed = await runCommand(this.context, command, command, { workflowId }, this.context.sessionId());
		if (changed) this.upsert(changed.data.workflow);
	}

	open(workflowId: string): void {
		this.openId = workflowId;
		this.note = undefined;
		this.touch();
	}

	close(): void {
		this.openId = undefined;
		this.touch();
	}

	workflow(workflowId: string | undefined): Workflow | undefined {
		return this.workflows.find((w) => w.id === workflowId);
	}

	private onEvent(event: SkiffEvent): void {
		if (event.type !== "workflow_updated") return;
		if (event.removed) this.drop(event.workflow.id);
		else this.upsert(event.workflow);
	}

	/** Adds or replaces a workflow; an older copy (the same change reaches every loaded session) never wins. */
	private upsert(workflow: Workflow): void {
		const at = this.workflows.findIndex((w) => w.id === workflow.id);
		if (at >= 0 && this.workflows[at]!.updatedAt > workflow.updatedAt) return;
		this.workflows = at < 0 ? [workflow, ...this.workflows] : this.workflows.map((w, i) => (i === at ? workflow : w));
		this.touch();
	}

	private drop(workflowId: string): void {
		this.workflows = this.workflows.filter((w) => w.id !== workflowId);
		if (this.openId === workflowId) this.openId = undefined;
		this.touch();
	}

	private touch(): void {
		this.version++;
		this.context.changed();
	}
}
