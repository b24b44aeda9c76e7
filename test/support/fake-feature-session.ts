/**
 * An in-memory stand-in for the session features keep state in (the runtime's FeatureSession): a tree of
 * custom entries with a leaf that can be moved, the events features send, hidden turns asked for, and turns
 * that end when a test says so. Typed by the runtime's own interface, so feature tests need no pi.
 */
import type { CustomEntryRecord, FeatureSession, HiddenContext, HiddenTurnStart, RunStop, RuntimeEvent, TurnUsage } from "../../src/agent/types.js";
import { CodedError } from "../../src/shared/errors.js";
import { preciseNow } from "../../src/shared/precise-clock.js";

interface Entry extends CustomEntryRecord {
	parentId: string | null;
}

export class FakeFeatureSession implements FeatureSession {
	readonly events: RuntimeEvent[] = [];
	readonly hiddenTurns: HiddenContext[] = [];
	/** The stops asked for while a run was active (an idle session has nothing to stop). */
	readonly stops: RunStop[] = [];
	/** Every entry of every branch, by id. */
	readonly entries = new Map<string, Entry>();
	leafId: string | null = null;
	/** Set to make hidden turns refused (`unavailable`), as without a model. */
	noModel = false;
	/** Set while a run is active: hidden turns are queued. */
	running = false;
	/** Set while the session moves in its tree: changes are refused (`busy`). */
	moving = false;
	/** Set to refuse every write the way a full disk does (kept entries are held, as the recorder's backlog holds them). */
	diskFull = false;
	private nextId = 1;
	private readonly turnListeners = new Set<(usage: TurnUsage) => void>();
	private readonly branchListeners = new Set<() => void>();
	private readonly closeListeners = new Set<() => void>();

	constructor(readonly sessionId = "fake-session") {}

	appendCustomEntry(customType: string, data: unknown, options: { keep?: boolean } = {}): string {
		if (this.diskFull && !options.keep) throw new CodedError("io_error", "Could not record the session: no space left on the device (ENOSPC)");
		const id = `e${this.nextId++}`;
		// Stored as recorded: a JSON copy, so later changes to the caller's object do not leak into it.
		this.entries.set(id, { id, customType, data: JSON.parse(JSON.stringify(data)), timestamp: new Date().toISOString(), parentId: this.leafId });
		this.leafId = id;
		return id;
	}

	customEntries(customType: string): CustomEntryRecord[] {
		const path: CustomEntryRecord[] = [];
		for (let id = this.leafId; id !== null; ) {
			const entry = this.entries.get(id)!;
			if (entry.customType === customType) path.unshift({ id: entry.id, customType, data: entry.data, timestamp: entry.timestamp });
			id = entry.parentId;
		}
		return path;
	}

	emit(event: RuntimeEvent): void {
		this.events.push(event);
	}

	checkCanStartTurn(): void {
		if (this.noModel) throw new CodedError("unavailable", "No model is configured");
	}

	checkCanRecord(): void {
		if (this.moving) throw new CodedError("busy", "The session is moving to another point of its tree");
	}

	async startHiddenTurn(context: HiddenContext): Promise<HiddenTurnStart> {
		this.checkCanStartTurn();
		this.hiddenTurns.push(context);
		return this.running ? "queued" : "started";
	}

	stopRun(stop: RunStop): void {
		if (this.running) this.stops.push(stop);
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

	/** A turn ended with this usage (it started `startedAt`, default: a moment ago). */
	endTurn(tokens: number, wallTimeMs = 5, startedAt = preciseNow() - wallTimeMs): void {
		for (const listener of [...this.turnListeners]) listener({ tokens, wallTimeMs, startedAt });
	}

	/** Moves the leaf (tree navigation) and tells the listeners. */
	navigate(leafId: string | null): void {
		this.leafId = leafId;
		for (const listener of [...this.branchListeners]) listener();
	}

	close(): void {
		for (const listener of [...this.closeListeners]) listener();
	}

	/** The events of one type sent so far. */
	sent(type: string): RuntimeEvent[] {
		return this.events.filter((e) => e.type === type);
	}
}
