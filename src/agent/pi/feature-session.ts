/**
 * A pi session as features that keep state in it see it (the runtime's FeatureSession): custom entries on the
 * active branch, events to the session's followers, hidden turns, and what each turn cost.
 */
import { CodedError } from "../../shared/errors.js";
import type { AgentSession, SessionManager } from "@mariozechner/pi-coding-agent";
import type { CustomEntryRecord, FeatureSession, HiddenContext, HiddenTurnStart, RunStop, RuntimeEvent, TurnUsage } from "../types.js";
import { noModelMessage, type PiEnvironment } from "./environment.js";
import type { SessionRecorder } from "./recorder.js";
import { preciseNow } from "../../shared/precise-clock.js";

export interface PiFeatureSessionParts {
	env: PiEnvironment;
	session: AgentSession;
	manager: SessionManager;
	recorder: SessionRecorder;
	/** Sends an event as the session's own (through the agent handle's listeners). */
	emit(event: RuntimeEvent): void;
	/** The agent handle's events, pi's and the adapter's (tree changes). */
	subscribe(listener: (event: RuntimeEvent) => void): () => void;
	/** A run is active (from agent_start to agent_end). */
	running(): boolean;
	/** Why nothing may start now (a compaction, a navigation), if so. */
	blocked(): string | undefined;
	/** The session is moving to another point of its tree (navigate_tree, maybe summarizing first). */
	navigating(): boolean;
	/** Stops the run under way at its next turn boundary (see run-bound.ts). */
	stopRun(stop: RunStop): void;
	/** Activates the feature tools that apply now (a hidden turn does not pass the turn-start hook). */
	syncTools(): void;
}

export class PiFeatureSession implements FeatureSession {
	private readonly turnListeners = new Set<(usage: TurnUsage) => void>();
	private readonly branchListeners = new Set<() => void>();
	private readonly closeListeners = new Set<() => void>();
	private turnStartedAt: number | undefined;
	private readonly unsubscribe: () => void;
	private closed = false;

	constructor(private readonly parts: PiFeatureSessionParts) {
		this.unsubscribe = parts.subscribe((event) => this.observe(event));
	}

	get sessionId(): string {
		return this.parts.session.sessionId;
	}

	appendCustomEntry(customType: string, data: unknown, options: { keep?: boolean } = {}): string {
		const { manager, recorder } = this.parts;
		if (options.keep) return manager.appendCustomEntry(customType, data);
		return recorder.appendOrRefuse(() => manager.appendCustomEntry(customType, data));
	}

	customEntries(customType: string): CustomEntryRecord[] {
		const entries: CustomEntryRecord[] = [];
		for (const entry of this.parts.manager.getBranch()) {
			if (entry.type !== "custom" || entry.customType !== customType) continue;
			entries.push({ id: entry.id, customType, data: entry.data, timestamp: entry.timestamp });
		}
		return entries;
	}

	emit(event: RuntimeEvent): void {
		if (!this.closed) this.parts.emit(event);
	}

	checkCanStartTurn(): void {
		const { env, session } = this.parts;
		const model = session.model;
		if (!model || !env.modelRegistry.hasConfiguredAuth(model)) throw new CodedError("unavailable", noModelMessage(env.agentDir));
		const blocked = this.parts.blocked();
		if (blocked) throw new CodedError("busy", `Cannot start a turn now: ${blocked} (wait for it, or abort it)`);
	}

	checkCanRecord(): void {
		if (this.parts.navigating()) throw new CodedError("busy", "Cannot change it now: the session is moving to another point of its tree (wait for navigate_tree)");
	}

	async startHiddenTurn(context: HiddenContext): Promise<HiddenTurnStart> {
		this.checkCanStartTurn();
		const { session } = this.parts;
		this.parts.syncTools();
		const message = { customType: context.customType, content: context.content, display: false };
		if (this.parts.running()) {
			await session.sendCustomMessage(message, { deliverAs: "followUp" });
			return "queued";
		}
		// Right after agent_end pi is still settling: the turn starts once it is idle.
		if (session.isStreaming) await session.agent.waitForIdle();
		return new Promise((resolve) => {
			const off = this.parts.subscribe((event) => {
				if (event.type !== "agent_start") return;
				off();
				resolve("started");
			});
			session.sendCustomMessage(message, { triggerTurn: true }).then(
				() => {
					off();
					resolve("started"); // ran (and ended) before its start was seen
				},
				() => {
					off();
					resolve("started"); // the run reports its own failure (agent_end with the error)
				},
			);
		});
	}

	stopRun(stop: RunStop): void {
		if (!this.closed) this.parts.stopRun(stop);
	}

	onTurnEnd(listener: (usage: TurnUsage) => void): () => void {
		this.turnListeners.add(listener);
		return () => this.turnListeners.delete(listener);
	}

	onBranchChanged(listener: () => void): () => void {
		this.branchListeners.add(listener);
		return () => this.branchListeners.delete(listener);
	}

	onClose(listener: () => void): () => void {
		this.closeListeners.add(listener);
		return () => this.closeListeners.delete(listener);
	}

	/** The session is disposed: listeners hear it once, and nothing is sent from now on. */
	close(): void {
		if (this.closed) return;
		this.closed = true;
		this.unsubscribe();
		for (const listener of [...this.closeListeners]) listener();
		this.turnListeners.clear();
		this.branchListeners.clear();
		this.closeListeners.clear();
	}

	private observe(event: RuntimeEvent): void {
		if (event.type === "turn_start") {
			this.turnStartedAt = preciseNow();
		} else if (event.type === "turn_end") {
			const endedAt = preciseNow();
			const startedAt = this.turnStartedAt ?? endedAt;
			this.turnStartedAt = undefined;
			const usage: TurnUsage = { tokens: turnTokens(event.message), wallTimeMs: Math.max(0, Math.round(endedAt - startedAt)), startedAt };
			for (const listener of [...this.turnListeners]) listener(usage);
		} else if (event.type === "tree_changed" && event.reload === true) {
			for (const listener of [...this.branchListeners]) listener();
		}
	}
}

/** The tokens an assistant message reports (pi's usage total; 0 without usage). */
function turnTokens(message: unknown): number {
	const usage = (message as { role?: unknown; usage?: { totalTokens?: unknown } } | undefined)?.usage;
	const total = usage?.totalTokens;
	return typeof total === "number" && Number.isFinite(total) && total > 0 ? Math.round(total) : 0;
}
