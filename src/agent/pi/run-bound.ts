/**
 * The bound of every run of one pi session. pi's agent loop goes on for as long as the model calls tools, so a
 * model that never stops calling them never stops (issue 20: a goal's budget was spent, and 1,657 model calls
 * followed in 25 s). Here a run is stopped at a turn boundary once it has taken its limit of turns
 * (`session.maxTurnsPerRun`), once the session has taken its profile's limit (a job's `maxTurns`, over all its
 * runs), or when asked to (FeatureSession.stopRun: the goal the run worked toward stopped being active).
 *
 * pi offers no public way to end a run between turns (its loop's `shouldStopAfterTurn` is not reachable through
 * its Agent), so the stop is an abort from the agent's own listeners, which pi awaits before it goes on: at
 * `turn_end`, before it polls its queues and calls the model again, or at `turn_start` for a stop asked between
 * turns, before that turn's model call. No model call follows; the run ends as an aborted one (its last reply is
 * recorded with stopReason `aborted`, as after a user's abort) and the session takes the next prompt as usual.
 */
import type { AgentSession } from "@mariozechner/pi-coding-agent";
import type { RunStop } from "../types.js";

type Agent = AgentSession["agent"];
type AgentEvent = Parameters<Parameters<Agent["subscribe"]>[0]>[0];

/** What `run_stopped` says: the stop, and how many turns the run had taken. */
export interface RunStopReport extends RunStop {
	turns: number;
}

export interface RunBoundParts {
	agent: Agent;
	/** Turns one run may take, read at every boundary (a settings change applies to the run under way). */
	perRun(): number;
	/** Turns the session may take while open, over all its runs (a profile's limit), if any. */
	perSession?: number;
	/** Aborts the run as the session's own abort does. */
	abort(): Promise<void>;
}

export class RunBound {
	private running = false;
	private runTurns = 0;
	private sessionTurns = 0;
	/** A stop asked for during the run, applied at its next boundary. */
	private asked: RunStop | undefined;
	/** Whether the run under way was stopped (once is enough). */
	private stopping = false;
	/** The stop that ended the last stopped run, until its end is reported (see ended). */
	private report: RunStopReport | undefined;
	private readonly unsubscribe: () => void;

	constructor(private readonly parts: RunBoundParts) {
		this.unsubscribe = parts.agent.subscribe((event) => this.observe(event));
	}

	/** Stops the run under way at its next turn boundary (see FeatureSession.stopRun); the first stop asked counts. */
	request(stop: RunStop): void {
		if (this.running && !this.stopping) this.asked ??= stop;
	}

	/**
	 * At the end of a run (its `agent_end`, with the run's messages): the stop that ended it, once; undefined when
	 * it ended otherwise (by itself at the boundary where it was to stop, or failed first).
	 */
	ended(messages: unknown): RunStopReport | undefined {
		const report = this.report;
		this.report = undefined;
		return report && lastReplyAborted(messages) ? report : undefined;
	}

	dispose(): void {
		this.unsubscribe();
	}

	private observe(event: AgentEvent): void {
		switch (event.type) {
			case "agent_start":
				this.running = true;
				this.runTurns = 0;
				this.asked = undefined;
				this.stopping = false;
				break;
			case "agent_end":
				this.running = false;
				this.asked = undefined;
				break;
			case "turn_start":
				// Asked between turns: this turn's model call is not made.
				if (this.asked) this.stop(this.asked);
				break;
			case "turn_end": {
				this.runTurns++;
				this.sessionTurns++;
				if (this.stopping || !this.goesOn(event.message)) break;
				const stop = this.asked ?? this.limitReached();
				if (stop) this.stop(stop);
				break;
			}
		}
	}

	/** The limit this turn reached, if any: the session's own first (it is a job's limit, which its job reports). */
	private limitReached(): RunStop | undefined {
		const { perSession } = this.parts;
		if (perSession !== undefined && this.sessionTurns >= perSession) {
			return { reason: "turn_limit", limit: perSession, message: `It reached its limit of ${turns(perSession)}` };
		}
		const perRun = this.parts.perRun();
		if (this.runTurns >= perRun) {
			return {
				reason: "turn_limit",
				limit: perRun,
				message: `The run took ${turns(perRun)}, its limit per run (session.maxTurnsPerRun): it was stopped before another model call`,
			};
		}
		return undefined;
	}

	/** Whether pi's loop would start another turn after this one: the model called tools, or messages wait. */
	private goesOn(message: unknown): boolean {
		return (message as { stopReason?: unknown } | undefined)?.stopReason === "toolUse" || this.parts.agent.hasQueuedMessages();
	}

	private stop(stop: RunStop): void {
		this.stopping = true;
		this.asked = undefined;
		this.report = { ...stop, turns: this.runTurns };
		void this.parts.abort().catch(() => undefined); // not awaited: pi waits for this listener before the run can end
	}
}

function turns(count: number): string {
	return `${count} turn${count === 1 ? "" : "s"}`;
}

function lastReplyAborted(messages: unknown): boolean {
	if (!Array.isArray(messages)) return false;
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i] as { role?: unknown; stopReason?: unknown };
		if (message?.role === "assistant") return message.stopReason === "aborted";
	}
	return false;
}
