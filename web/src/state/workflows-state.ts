/**
 * The Workflows panel's state: every workflow of the service (workflows are the service's, not a session's),
 * loaded once with workflow_list and kept current by `workflow_updated` (no polling), the one opened in detail,
 * and the commands the panel sends.
 */
import type { SkiffClient, SkiffEvent, Workflow } from "../../../src/client/index";

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

	constructor(
		private readonly client: SkiffClient,
		private readonly sessionId: () => string | undefined,
		private readonly changed: () => void,
		private readonly fail: (text: string) => void,
	) {
		client.onEvent((event) => this.onEvent(event));
		// Changes made while the connection was down are not replayed for every workflow: load them again.
		client.onStatus(({ status }) => {
			if (status === "connected" && this.loaded) void this.refresh();
		});
	}

	/** Loads every workflow (through the current session, where workflow_updated arrives). */
	async refresh(): Promise<void> {
		const sessionId = this.sessionId();
		if (!sessionId) return;
		try {
			const { workflows } = await this.client.call("workflow_list", {}, { sessionId });
			// An event that arrived while the answer was on its way may be newer than the answer's copy.
			const known = new Map(this.workflows.map((w) => [w.id, w]));
			this.workflows = workflows.map((w) => {
				const mine = known.get(w.id);
				return mine && mine.updatedAt > w.updatedAt ? mine : w;
			});
			this.loaded = true;
			this.touch();
		} catch (error) {
			this.fail(`workflow_list failed: ${(error as Error).message}`);
		}
	}

	/** Starts a workflow in the current session's directory; false (and a toast saying why) when refused. */
	async create(name: string, objective: string, isolation: Isolation): Promise<boolean> {
		try {
			const { workflow } = await this.client.call("workflow_create", { name, objective, isolation }, { sessionId: this.sessionId() });
			this.upsert(workflow);
			this.open(workflow.id);
			return true;
		} catch (error) {
			this.fail(`workflow_create failed: ${(error as Error).message}`);
			return false;
		}
	}

	/** Sends one of the actions the workflow allows now. */
	async act(workflowId: string, action: WorkflowAction): Promise<void> {
		try {
			if (action === "remove") {
				const { branchKept } = await this.client.call("workflow_remove", { workflowId }, { sessionId: this.sessionId() });
				this.drop(workflowId);
				this.note = branchKept ? `Removed; its branch ${branchKept} was kept so that no work is lost.` : undefined;
				this.touch();
				return;
			}
			const { workflow } = await this.client.call(ACTION_COMMANDS[action], { workflowId }, { sessionId: this.sessionId() });
			this.upsert(workflow);
		} catch (error) {
			this.fail(`${ACTION_COMMANDS[action]} failed: ${(error as Error).message}`);
		}
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
		this.changed();
	}
}
