/**
 * The session tree's client state, for the Tree panel and the transcript's message actions: the current
 * session's tree (get_tree once, then every tree_changed), and the tree commands (navigate_tree, set_label,
 * resend). Loaded when the panel or the transcript first shows a session; kept current by events from then on.
 */
import type { CommandResult, TreeChangedEvent, TreeNode } from "../../../src/client/index.js";
import { entryImage } from "./entry-images";
import { withMentions } from "./mentions";
import { branchTip } from "./message-places";
import { failureText, type PanelContext, runCommand } from "./panel-context";

export interface SessionTree {
	sessionId: string;
	nodes: Map<string, TreeNode>;
	/** Ids in the order recorded. */
	order: string[];
	leafId: string | null;
	/** Bumped on every change (views recompute their rows only then). */
	version: number;
}

export class TreeState {
	tree: SessionTree | undefined;
	/** The session whose tree is being read. */
	loading: string | undefined;
	/** Why the tree could not be read. */
	error: string | undefined;
	/** A navigation under way (`summarizing` while the model writes the branch summary). */
	navigating: "moving" | "summarizing" | undefined;
	/** tree_changed events that arrived while get_tree was under way. */
	private held: TreeChangedEvent[] = [];

	constructor(private readonly context: PanelContext) {
		context.client.on("tree_changed", (event) => {
			if (this.loading === event.sessionId) this.held.push(event);
			else if (this.tree?.sessionId === event.sessionId) {
				apply(this.tree, event);
				context.changed();
			}
		});
		context.client.on("session_reloaded", (event) => {
			if (this.tree?.sessionId === event.sessionId) void this.load(event.sessionId); // another program wrote the file: the tree may differ anywhere
		});
		context.client.onResync(({ sessionId }) => {
			// Read again when the panel next shows it (events it missed are gone).
			if (this.tree?.sessionId === sessionId) this.tree = undefined;
		});
	}

	/** Reads the session's tree unless it is loaded or being read. */
	ensure(sessionId: string): void {
		if (this.tree?.sessionId === sessionId || this.loading === sessionId) return;
		void this.load(sessionId);
	}

	async load(sessionId: string): Promise<void> {
		this.loading = sessionId;
		this.error = undefined;
		this.held = [];
		this.context.changed();
		try {
			const answer = await this.context.client.call("get_tree", {}, { sessionId });
			if (this.loading !== sessionId) return; // another session was asked for meanwhile
			const tree: SessionTree = { sessionId, nodes: new Map(), order: [], leafId: answer.leafId, version: 0 };
			for (const node of answer.nodes) add(tree, node);
			// Events that came before the answer are in it, unless they recorded entries it lacks (then they are newer).
			for (const event of this.held) if (event.nodes.some((n) => !tree.nodes.has(n.id))) apply(tree, event);
			this.tree = tree;
		} catch (error) {
			if (this.loading === sessionId) this.error = failureText(error);
		} finally {
			if (this.loading === sessionId) this.loading = undefined;
			this.held = [];
			this.context.changed();
		}
	}

	/**
	 * Moves the conversation to `entryId` (navigate_tree), optionally summarizing the branch left. Resolves the
	 * answer (its `editorText` goes back to the message box), or rejects with the service's reason.
	 */
	async navigate(sessionId: string, entryId: string, summary?: { instructions: string }): Promise<CommandResult<"navigate_tree">> {
		this.navigating = summary ? "summarizing" : "moving";
		this.context.changed();
		try {
			const instructions = summary?.instructions.trim();
			const result = await this.context.client.call("navigate_tree", { entryId, ...(summary ? { summarize: true } : {}), ...(instructions ? { customInstructions: instructions } : {}) }, { sessionId });
			this.context.announce(
				result.editorText !== undefined ? "Continued before your message: it is in the message box, to edit and send again." : "Continued from the chosen entry.",
			);
			return result;
		} finally {
			this.navigating = undefined;
			this.context.changed();
		}
	}

	/**
	 * Sends a prompt again on a new branch (`resend`: with `text`, edited, its `@` mentions expanded as a sent
	 * message's are); resolves false when refused, the reason toasted.
	 */
	async resend(sessionId: string, entryId: string, text?: string): Promise<boolean> {
		let message = text;
		if (text !== undefined) {
			try {
				const mentioned = await withMentions(text.trim(), (path) => this.context.client.call("files_read", { path }, { sessionId }));
				if (mentioned.images.length > 0) throw new Error("An edited message goes as text: send an image mentioned with @ in a new message");
				message = mentioned.text;
			} catch (error) {
				this.refuse(failureText(error));
				return false;
			}
		}
		return (await runCommand(this.context, "Sending again", "resend", message === undefined ? { entryId } : { entryId, message }, sessionId)) !== undefined;
	}

	/** Image `index` of entry `entryId`, left out of the transcript, as a `data:` URI (entry-images.ts). */
	image(sessionId: string, entryId: string, index: number): Promise<string> {
		return entryImage(this.context.client, sessionId, entryId, index);
	}

	/** Shows the branch starting at `entryId` (its newest entry becomes the leaf); the text to edit if it ends at a prompt. */
	async showBranch(sessionId: string, entryId: string): Promise<string | undefined> {
		const tree = this.tree?.sessionId === sessionId ? this.tree : undefined;
		try {
			return tree ? (await this.navigate(sessionId, branchTip(tree, entryId))).editorText : undefined;
		} catch (error) {
			this.refuse(`Switching branches failed: ${failureText(error)}`);
		}
	}

	/** Says why an action on the tree was not done (an error toast). */
	refuse(reason: string): void {
		this.context.toast(reason);
	}

	/** Stops a branch summary under way (`abort`): the navigation then fails and nothing changes. */
	async stopSummary(sessionId: string): Promise<void> {
		await this.context.client.call("abort", {}, { sessionId }).catch(() => undefined); // the navigation's own answer says what happened
	}

	/** Sets (or, when blank, clears) an entry's label; rejects with the service's reason. */
	async setLabel(sessionId: string, entryId: string, label: string): Promise<void> {
		const trimmed = label.trim();
		await this.context.client.call("set_label", trimmed ? { entryId, label: trimmed } : { entryId }, { sessionId });
	}
}

function add(tree: SessionTree, node: TreeNode): void {
	if (!tree.nodes.has(node.id)) tree.order.push(node.id);
	tree.nodes.set(node.id, node);
}

function apply(tree: SessionTree, event: TreeChangedEvent): void {
	for (const node of event.nodes) add(tree, node);
	tree.leafId = event.leafId;
	const labelled = event.labelled;
	const target = labelled ? tree.nodes.get(labelled.entryId) : undefined;
	if (labelled && target) {
		const { label: _, ...rest } = target;
		tree.nodes.set(target.id, labelled.label ? { ...rest, label: labelled.label } : rest);
	}
	tree.version++;
}
