/**
 * Goal: the session's one objective, live (`goal_updated`, `goal_usage`). Its state and why it is paused, the
 * objective, a budget bar (tokens used of the budget, and time worked), the pins (at most 8 of 200
 * characters), the journal of every transition, and only the actions the state allows (the service's
 * `actions`). Without a goal, or after one ended, a form sets a new one: objective, optional token budget, and
 * whether to start working on it now.
 */
import { useState } from "preact/hooks";
import type { Goal, GoalEvent, GoalView } from "../../../../src/client/index.js";
import { Markdown } from "../../render/markdown";
import { redact } from "../../render/redact";
import { MAX_OBJECTIVE_BYTES, MAX_PIN_CHARS, MAX_PINS, pinLength, utf8Bytes } from "../../state/goal-state";
import { Icon } from "../icons";
import { clearIfUnchanged } from "../sent-field";
import type { PanelProps } from "./panel";
import { PanelLayout, PanelSection, SnapshotPending } from "./panel-layout";
import "../../styles/goal.css";

type Run = (type: "goal_create" | "goal_pause" | "goal_resume" | "goal_complete" | "goal_drop" | "goal_pin" | "goal_unpin", params: object) => Promise<string | undefined>;

/** Who paused a goal by hand, as the card and the journal say it (journals written before it was kept say nobody). */
const PAUSED_BY = { user: "Paused by you", agent: "Paused by the agent" } as const;

const PAUSE_REASON: Record<NonNullable<Goal["pauseReason"]>, string> = {
	manual: "Paused. Resume it to let the agent work toward it again.",
	budget_exhausted: "Paused: the token budget is spent. Resume it with a bigger budget.",
	resume_safety: "Paused because the session was opened again, so that nothing runs unattended. Resume it to go on.",
};

export function GoalPanel({ controller }: PanelProps) {
	const { ready, sessionId } = controller.state;
	const goals = controller.goal;
	const snapshot = ready && sessionId ? goals.goal(sessionId) : undefined;
	const run: Run = (type, params) => goals.run(sessionId!, type, params as never);
	const view = snapshot?.state === "loaded" ? snapshot.value : undefined;
	const current = view?.goal && (view.goal.lifecycle === "active" || view.goal.lifecycle === "paused") ? view.goal : undefined;

	return (
		<PanelLayout title="Goal">
			{snapshot?.state !== "loaded" ? (
				<SnapshotPending snapshot={snapshot} ready={ready} loading="Loading the goal…" failed="The goal could not be read" onRetry={() => goals.retry(sessionId!)} />
			) : (
				<>
					{view!.journalError && (
						<p class="goal-damaged" role="alert">
							The goal's journal on this branch is damaged ({view!.journalError}), so the goal steers nothing and cannot change. Move to an earlier point of the tree, or continue in a new session.
						</p>
					)}
					{current ? <CurrentGoal goal={current} view={view!} run={run} /> : <NoGoal last={view!.goal} allowed={view!.actions.includes("create")} run={run} />}
					{view!.revision > 0 && <Journal controller={controller} sessionId={sessionId!} />}
				</>
			)}
		</PanelLayout>
	);
}

function NoGoal(props: { last: Goal | undefined; allowed: boolean; run: Run }) {
	const { last } = props;
	return (
		<>
			{last && (
				<div class="goal-card ended" data-lifecycle={last.lifecycle}>
					<p class="goal-status">
						<span class={`goal-badge ${last.lifecycle}`}>{last.lifecycle === "completed" ? "Completed" : "Dropped"}</span>
						<span class="hint">{when(last.updatedAt)}</span>
					</p>
					<p class="goal-objective clamp">{redact(last.objective)}</p>
					<Budget goal={last} />
				</div>
			)}
			{props.allowed && <CreateForm again={last !== undefined} run={props.run} />}
		</>
	);
}

function CreateForm(props: { again: boolean; run: Run }) {
	const [objective, setObjective] = useState("");
	const [budget, setBudget] = useState("");
	const [activate, setActivate] = useState(true);
	const [error, setError] = useState("");
	const [busy, setBusy] = useState(false);
	return (
		<form
			class="goal-create"
			aria-label="Set a goal"
			noValidate
			onSubmit={(e) => {
				e.preventDefault();
				const text = objective.trim();
				if (!text) return setError("Say what the agent should achieve.");
				if (utf8Bytes(text) > MAX_OBJECTIVE_BYTES) return setError("The objective is longer than 64 KiB: shorten it.");
				const tokens = budget.trim() ? Number(budget) : undefined;
				if (tokens !== undefined && !(Number.isInteger(tokens) && tokens >= 1)) return setError("The budget is a whole number of tokens, 1 or more (or leave it empty: no limit).");
				setBusy(true);
				void props.run("goal_create", { objective: text, ...(tokens !== undefined ? { tokenBudget: tokens } : {}), ...(activate ? { activate: true } : {}) }).then((refused) => {
					setBusy(false);
					setError(refused ?? "");
				});
			}}
		>
			<h3 class="goal-form-title">{props.again ? "New goal" : "Set a goal"}</h3>
			{!props.again && (
				<p class="hint">One objective the agent keeps in mind across turns, optionally within a token budget. While it is active, every prompt carries it, and the agent can mark it complete.</p>
			)}
			<label class="field">
				<span>Objective</span>
				<textarea
					name="goal-objective"
					rows={3}
					value={objective}
					placeholder="What the agent should achieve, and how you will know it is done"
					aria-invalid={error ? "true" : undefined}
					aria-describedby={error ? "goal-create-error" : undefined}
					onInput={(e) => {
						setObjective((e.target as HTMLTextAreaElement).value);
						setError("");
					}}
				/>
			</label>
			<label class="field">
				<span>Token budget</span>
				<input name="goal-budget" type="number" inputMode="numeric" min={1} step={1} value={budget} placeholder="No limit" onInput={(e) => setBudget((e.target as HTMLInputElement).value)} />
				<span class="hint">Optional: the goal pauses once its turns have used this many tokens.</span>
			</label>
			<label class="check">
				<input type="checkbox" name="goal-activate" checked={activate} onChange={(e) => setActivate((e.target as HTMLInputElement).checked)} />
				<span>Start working on it now</span>
			</label>
			{error && (
				<p id="goal-create-error" class="error-text" role="alert">
					{error}
				</p>
			)}
			<div class="row">
				<button type="submit" class="primary small" disabled={busy}>
					Set goal
				</button>
			</div>
		</form>
	);
}

function CurrentGoal({ goal, view, run }: { goal: Goal; view: GoalView; run: Run }) {
	const [error, setError] = useState("");
	const [busy, setBusy] = useState(false);
	const [confirmDrop, setConfirmDrop] = useState(false);
	const allowed = new Set(view.actions);
	const act = (type: Parameters<Run>[0], params: object = {}) => {
		setBusy(true);
		setError("");
		return run(type, params).then((refused) => {
			setBusy(false);
			setError(refused ?? "");
			return refused;
		});
	};
	return (
		<>
			<div class="goal-card" data-lifecycle={goal.lifecycle} data-pause-reason={goal.pauseReason}>
				<p class="goal-status">
					<span class={`goal-badge ${goal.lifecycle}`}>{goal.lifecycle === "active" ? "Active" : "Paused"}</span>
					<span class="hint">set at {when(goal.createdAt)}</span>
				</p>
				{goal.pauseReason && (
					<p class="goal-reason">{goal.pausedBy ? `${PAUSED_BY[goal.pausedBy]}. Resume it to let the agent work toward it again.` : PAUSE_REASON[goal.pauseReason]}</p>
				)}
				<div class="goal-objective">
					<Markdown text={goal.objective} />
				</div>
				<Budget goal={goal} />
				{allowed.has("resume") && <ResumeForm goal={goal} busy={busy} act={act} />}
				<div class="goal-actions">
					{allowed.has("pause") && (
						<button type="button" class="small" disabled={busy} onClick={() => void act("goal_pause")}>
							Pause
						</button>
					)}
					{allowed.has("complete") && (
						<button type="button" class="small" disabled={busy} onClick={() => void act("goal_complete")}>
							Complete
						</button>
					)}
					{allowed.has("drop") &&
						(confirmDrop ? (
							<span class="goal-confirm" role="group" aria-label="Drop the goal?">
								<span>Drop it for good?</span>
								<button type="button" class="small danger" disabled={busy} onClick={() => void act("goal_drop").then(() => setConfirmDrop(false))}>
									Drop
								</button>
								<button type="button" class="small" onClick={() => setConfirmDrop(false)}>
									Keep
								</button>
							</span>
						) : (
							<button type="button" class="small danger" disabled={busy} onClick={() => setConfirmDrop(true)}>
								Drop…
							</button>
						))}
				</div>
				{error && (
					<p class="error-text" role="alert">
						{error}
					</p>
				)}
			</div>
			<Pins goal={goal} canPin={allowed.has("pin")} canUnpin={allowed.has("unpin")} run={run} />
		</>
	);
}

/** Resumes a paused goal: a new budget when the old one is spent (more than what is used), and whether to start now. */
function ResumeForm(props: { goal: Goal; busy: boolean; act(type: "goal_resume", params: object): Promise<string | undefined> }) {
	const { goal } = props;
	const spent = goal.tokenBudget !== undefined && goal.usage.tokens >= goal.tokenBudget;
	const [budget, setBudget] = useState("");
	const [activate, setActivate] = useState(true);
	const [problem, setProblem] = useState("");
	return (
		<form
			class="goal-resume"
			aria-label="Resume the goal"
			noValidate
			onSubmit={(e) => {
				e.preventDefault();
				const tokens = budget.trim() ? Number(budget) : undefined;
				if (spent && (tokens === undefined || !Number.isInteger(tokens) || tokens <= goal.usage.tokens)) {
					return setProblem(`A new budget above the ${formatTokens(goal.usage.tokens)} tokens used is needed.`);
				}
				setProblem("");
				void props.act("goal_resume", { ...(tokens !== undefined ? { tokenBudget: tokens } : {}), ...(activate ? { activate: true } : {}) });
			}}
		>
			{spent && (
				<label class="field">
					<span>New token budget</span>
					<input
						name="goal-new-budget"
						type="number"
						inputMode="numeric"
						min={goal.usage.tokens + 1}
						step={1}
						value={budget}
						placeholder={`more than ${formatTokens(goal.usage.tokens)}`}
						aria-invalid={problem ? "true" : undefined}
						onInput={(e) => {
							setBudget((e.target as HTMLInputElement).value);
							setProblem("");
						}}
					/>
				</label>
			)}
			<div class="goal-resume-row">
				<label class="check">
					<input type="checkbox" name="goal-resume-activate" checked={activate} onChange={(e) => setActivate((e.target as HTMLInputElement).checked)} />
					<span>Start working now</span>
				</label>
				<button type="submit" class="primary small" disabled={props.busy}>
					Resume
				</button>
			</div>
			{problem && (
				<p class="error-text" role="alert">
					{problem}
				</p>
			)}
		</form>
	);
}

/** Tokens used of the budget (a bar), or used without a budget; and the time worked. */
function Budget({ goal }: { goal: Goal }) {
	const { tokens, wallTimeMs } = goal.usage;
	const budget = goal.tokenBudget;
	const share = budget ? Math.min(1, tokens / budget) : 0;
	return (
		<div class="goal-budget">
			{budget !== undefined && (
				<div
					class={`goal-bar${share >= 1 ? " spent" : share >= 0.8 ? " low" : ""}`}
					role="progressbar"
					aria-label="Token budget used"
					aria-valuemin={0}
					aria-valuemax={budget}
					aria-valuenow={Math.min(tokens, budget)}
					aria-valuetext={`${formatTokens(tokens)} of ${formatTokens(budget)} tokens`}
				>
					<span style={{ width: `${share * 100}%` }} />
				</div>
			)}
			<p class="hint goal-usage">
				{budget !== undefined ? (
					<>
						{/* A no-break space: "(8 %)" never wraps between its number and its sign. */}
						<strong>{formatTokens(tokens)}</strong> of {formatTokens(budget)} tokens ({Math.round(share * 100)}{"\u00a0"}%)
					</>
				) : (
					<>
						<strong>{formatTokens(tokens)}</strong> tokens used · no budget
					</>
				)}
				{wallTimeMs > 0 && <span class="goal-time"> · {formatDuration(wallTimeMs)} of work</span>}
			</p>
		</div>
	);
}

function Pins(props: { goal: Goal; canPin: boolean; canUnpin: boolean; run: Run }) {
	const { goal } = props;
	const [text, setText] = useState("");
	const [error, setError] = useState("");
	const [busy, setBusy] = useState(false);
	const full = goal.pins.length >= MAX_PINS;
	const act = (type: "goal_pin" | "goal_unpin", params: object) => {
		setBusy(true);
		return props.run(type, params).then((refused) => {
			setBusy(false);
			setError(refused ?? "");
			return refused;
		});
	};
	return (
		<PanelSection title={`Pins ${goal.pins.length}/${MAX_PINS}`}>
			{goal.pins.length === 0 ? (
				<p class="hint">Short notes the agent keeps with the goal: constraints, decisions, where things are.</p>
			) : (
				<ul class="goal-pins">
					{goal.pins.map((pin, index) => (
						<li key={`${index}:${pin}`}>
							<span>{redact(pin)}</span>
							{props.canUnpin && (
								<button type="button" class="ghost icon small" disabled={busy} aria-label={`Unpin “${pin.slice(0, 40)}”`} title="Unpin" onClick={() => void act("goal_unpin", { index })}>
									<Icon name="close" />
								</button>
							)}
						</li>
					))}
				</ul>
			)}
			{props.canPin && (
				<form
					class="goal-pin-form"
					aria-label="Add a pin"
					onSubmit={(e) => {
						e.preventDefault();
						const pin = text.trim();
						if (!pin) return setError("Write the note to pin.");
						if (pinLength(pin) > MAX_PIN_CHARS) return setError(`A pin holds at most ${MAX_PIN_CHARS} characters.`);
						void act("goal_pin", { text: pin }).then((refused) => !refused && clearIfUnchanged(setText, text));
					}}
				>
					<input
						name="goal-pin"
						value={text}
						placeholder="Pin a note"
						aria-label="New pin"
						aria-invalid={error ? "true" : undefined}
						onInput={(e) => {
							setText((e.target as HTMLInputElement).value);
							setError("");
						}}
					/>
					<button type="submit" class="small" disabled={busy || !text.trim()}>
						Pin
					</button>
				</form>
			)}
			{props.canPin && pinLength(text) > MAX_PIN_CHARS * 0.8 && (
				<p class={pinLength(text.trim()) > MAX_PIN_CHARS ? "hint error-text" : "hint"}>
					{pinLength(text)}/{MAX_PIN_CHARS}
				</p>
			)}
			{full && <p class="hint">{MAX_PINS} pins, the most a goal holds: unpin one to add another.</p>}
			{error && (
				<p class="error-text" role="alert">
					{error}
				</p>
			)}
		</PanelSection>
	);
}

/** Journal events listed before "Show all". */
const JOURNAL_SHOWN = 12;

/** The journal of the branch, newest first: read when shown, and again after every change of the goal. */
function Journal({ controller, sessionId }: { controller: PanelProps["controller"]; sessionId: string }) {
	const [open, setOpen] = useState(true);
	const [all, setAll] = useState(false);
	const journal = open ? controller.goal.journal(sessionId) : undefined;
	const newest = journal?.state === "loaded" ? [...journal.value.events].reverse() : [];
	const events = all ? newest : newest.slice(0, JOURNAL_SHOWN);
	return (
		<section class="panel-section goal-journal" aria-label="Journal">
			<h3>
				<button type="button" class="link goal-journal-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
					Journal
				</button>
			</h3>
			{open &&
				(!journal || journal.state === "loading" ? (
					<p class="hint">Loading…</p>
				) : journal.state === "failed" ? (
					<p class="error-text">{journal.error}</p>
				) : events.length === 0 ? (
					<p class="hint">Nothing yet: the journal records every change of the goal on this branch.</p>
				) : (
					<ol class="goal-events">
						{events.map((event) => (
							<li key={event.revision} data-kind={event.change.kind}>
								<time dateTime={event.at}>{when(event.at)}</time>
								<span>{describe(event)}</span>
							</li>
						))}
						{newest.length > events.length && (
							<li>
								<button type="button" class="link" onClick={() => setAll(true)}>
									Show all {newest.length}
								</button>
							</li>
						)}
						{all && journal.value.total > newest.length && <li class="hint">… and {journal.value.total - newest.length} earlier, not kept here</li>}
					</ol>
				))}
		</section>
	);
}

function describe(event: GoalEvent): string {
	const change = event.change;
	switch (change.kind) {
		case "created":
			return `Set: “${clip(redact(change.objective), 120)}”${change.tokenBudget !== undefined ? ` (budget ${formatTokens(change.tokenBudget)})` : ""}`;
		case "paused":
			return change.reason === "budget_exhausted" ? "Paused: budget spent" : change.reason === "resume_safety" ? "Paused: session opened again" : change.by ? PAUSED_BY[change.by] : "Paused";
		case "resumed":
			return change.tokenBudget !== undefined ? `Resumed (budget ${formatTokens(change.tokenBudget)})` : "Resumed";
		case "completed":
			return "Completed";
		case "dropped":
			return "Dropped";
		case "pinned":
			return `Pinned “${redact(change.text)}”`;
		case "unpinned":
			return `Unpinned pin ${change.index + 1}`;
		case "usage":
			return `+${formatTokens(change.tokens)} tokens${change.wallTimeMs > 0 ? `, ${formatDuration(change.wallTimeMs)}` : ""}`;
	}
}

/** A text on one line, cut at a word (never inside one) with an ellipsis when longer than `max`. */
function clip(text: string, max: number): string {
	const line = text.replace(/\s+/g, " ").trim();
	if (line.length <= max) return line;
	const cut = line.slice(0, max);
	const space = cut.lastIndexOf(" ");
	return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:]+$/, "")}…`;
}

function formatTokens(n: number): string {
	return n.toLocaleString("en-US");
}

function formatDuration(ms: number): string {
	const seconds = Math.round(ms / 1000);
	if (seconds < 60) return `${seconds} s`;
	const minutes = Math.round(seconds / 60);
	if (minutes < 60) return `${minutes} min`;
	return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** A time as the journal shows it: the time today, else the date and time. */
function when(iso: string): string {
	const date = new Date(iso);
	if (Number.isNaN(date.getTime())) return "";
	const today = date.toDateString() === new Date().toDateString();
	return today ? date.toLocaleTimeString(undefined, { hour: "numeric", minute: "2-digit" }) : date.toLocaleString(undefined, { month: "short", day: "numeric", hour: "numeric", minute: "2-digit" });
}
