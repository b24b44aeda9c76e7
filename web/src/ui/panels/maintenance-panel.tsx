/**
 * Maintenance of the current session and of what is kept: context and cost as they change (session_stats),
 * compaction with its before → after report, the messages waiting for the agent (each can be withdrawn), the
 * session as a download, the memory inspector, the doctor's checks, and pruning old sessions after a dry run.
 */
import { byteSize } from "../../state/byte-size";
import { useEffect, useState } from "preact/hooks";
import type { SessionStats } from "../../../../src/client/index.js";
import { redact } from "../../render/redact";
import type { Controller } from "../../state/controller";
import { compactionSentence, type MaintenanceState, plural } from "../../state/maintenance-state";
import { relativeTime, shortFolder } from "../../state/session-title";
import { clearIfUnchanged } from "../sent-field";
import type { PanelProps } from "./panel";
import { PanelLayout, PanelSection } from "./panel-layout";

/** The age offered for pruning until the user types another, in days. */
const DEFAULT_PRUNE_DAYS = 30;
/** Sessions a dry run lists by name (the rest are counted). */
const PRUNE_LIST_MAX = 20;

export function MaintenancePanel({ controller }: PanelProps) {
	const { sessionId, ready } = controller.state;
	const state = controller.maintenance;
	useEffect(() => {
		if (!sessionId || !ready) return;
		state.ensureStats(sessionId);
		state.ensureMemory(sessionId);
	}, [sessionId, ready, state]);
	if (!sessionId) return <PanelLayout title="Maintenance">{null}</PanelLayout>;
	return (
		<PanelLayout title="Maintenance">
			<ContextSection controller={controller} state={state} sessionId={sessionId} />
			<QueueSection controller={controller} state={state} sessionId={sessionId} />
			<ExportSection controller={controller} state={state} sessionId={sessionId} />
			<MemorySection controller={controller} state={state} />
			<DoctorSection controller={controller} state={state} sessionId={sessionId} />
			<PruneSection controller={controller} state={state} />
		</PanelLayout>
	);
}

interface SectionProps {
	controller: Controller;
	state: MaintenanceState;
	sessionId: string;
}

const number = (n: number) => n.toLocaleString("en-US");

function ContextSection({ controller, state, sessionId }: SectionProps) {
	const [instructions, setInstructions] = useState("");
	const stats: SessionStats | undefined = state.stats.get(sessionId);
	const running = Boolean(controller.transcript()?.running);
	const compacting = state.compacting.has(sessionId);
	const report = state.compaction?.sessionId === sessionId ? state.compaction : undefined;
	const usage = stats?.contextUsage;
	const percent = usage?.percent ?? undefined;
	return (
		<PanelSection title="Context and cost">
			{usage ? (
				<div class="context-use">
					<div class="context-line">
						<span>Context window</span>
						<span class="figure">
							{usage.tokens === null ? `? of ${number(usage.contextWindow)}` : `${number(usage.tokens)} of ${number(usage.contextWindow)}`} tokens
						</span>
					</div>
					<div
						class={`meter${percent !== undefined && percent >= 80 ? " high" : ""}`}
						role="meter"
						aria-label="Context window used"
						aria-valuemin={0}
						aria-valuemax={100}
						aria-valuenow={percent ?? undefined}
						aria-valuetext={percent === undefined ? "unknown until the model answers again" : `${percent.toFixed(1)} percent`}
					>
						<span style={{ width: `${Math.min(100, percent ?? 0)}%` }} />
					</div>
					<p class="hint">{percent === undefined ? "Unknown until the model answers again (right after a compaction)." : `${percent.toFixed(1)}% used`}</p>
				</div>
			) : (
				<p class="hint">{stats ? "The model's context window is not known." : "Reading the figures…"}</p>
			)}
			{stats && (
				<dl class="stats">
					<div>
						<dt>Input</dt>
						<dd>{number(stats.tokens.input)}</dd>
					</div>
					<div>
						<dt>Output</dt>
						<dd>{number(stats.tokens.output)}</dd>
					</div>
					<div>
						<dt>Cache read</dt>
						<dd>{number(stats.tokens.cacheRead)}</dd>
					</div>
					<div>
						<dt>Cache write</dt>
						<dd>{number(stats.tokens.cacheWrite)}</dd>
					</div>
					<div>
						<dt>Cost</dt>
						<dd>${stats.cost.toFixed(stats.cost > 0 && stats.cost < 1 ? 4 : 2)}</dd>
					</div>
					<div>
						<dt>Messages (you / agent)</dt>
						<dd>
							{number(stats.userMessages)} / {number(stats.assistantMessages)}
						</dd>
					</div>
				</dl>
			)}
			<div class="compact-form">
				<input
					type="text"
					aria-label="What the summary should keep (optional)"
					placeholder="Summary focus (optional)"
					value={instructions}
					disabled={compacting}
					onInput={(e) => setInstructions((e.target as HTMLInputElement).value)}
				/>
				<button
					type="button"
					class="small"
					disabled={!controller.state.ready || running || compacting}
					onClick={() => void state.compact(sessionId, instructions).then(() => clearIfUnchanged(setInstructions, instructions))}
				>
					{compacting ? "Compacting…" : "Compact now"}
				</button>
			</div>
			{running && !compacting && <p class="hint">Compaction waits until the run ends.</p>}
			{report?.result && (
				<p class="result" role="status">
					Compacted: {compactionSentence(report.result)}.
				</p>
			)}
			{report?.error && (
				<p class="error-text" role="alert">
					{redact(report.error)}
				</p>
			)}
		</PanelSection>
	);
}

function QueueSection({ controller, state, sessionId }: SectionProps) {
	const transcript = controller.transcript();
	const queued = transcript?.queued ?? { steering: [], followUp: [] };
	const items = [...queued.steering.map((text, index) => ({ kind: "steering" as const, text, index })), ...queued.followUp.map((text, index) => ({ kind: "followUp" as const, text, index }))];
	const cancel = async (kind: "steering" | "followUp", index: number) => {
		const removed = await state.cancelQueued(sessionId, kind, index);
		if (removed === undefined) return;
		transcript?.withdraw(removed);
		controller.putInComposer(sessionId, removed);
	};
	return (
		<PanelSection title="Waiting messages">
			{items.length === 0 ? (
				<p class="hint">Nothing waits. Messages you send while the agent works wait here until it takes them.</p>
			) : (
				<ul class="queue-list">
					{items.map((item) => (
						<li key={`${item.kind}:${item.index}`}>
							<span class="tag">{item.kind === "steering" ? "steer" : "follow-up"}</span>
							<span class="text">{redact(item.text)}</span>
							<button type="button" class="small" aria-label={`Withdraw: ${redact(item.text).slice(0, 60)}`} onClick={() => void cancel(item.kind, item.index)}>
								Withdraw
							</button>
						</li>
					))}
				</ul>
			)}
			{items.length > 0 && <p class="hint">A withdrawn message goes back to the message box.</p>}
			{state.queueError && (
				<p class="error-text" role="alert">
					{redact(state.queueError)}
				</p>
			)}
		</PanelSection>
	);
}

function ExportSection({ controller, state, sessionId }: SectionProps) {
	// The file is written from the first message: a session with messages has one, whatever the state read before said.
	const persisted = Boolean(controller.state.session?.persisted) || (controller.transcript()?.messages.length ?? 0) > 0;
	const { busy, error, saved } = state.download;
	return (
		<PanelSection title="Download">
			<div class="button-row">
				<button type="button" class="small" disabled={!persisted || busy !== undefined} onClick={() => void state.save(sessionId, "html")}>
					{busy === "html" ? "Preparing…" : "Page (HTML)"}
				</button>
				<button type="button" class="small" disabled={!persisted || busy !== undefined} onClick={() => void state.save(sessionId, "jsonl")}>
					{busy === "jsonl" ? "Preparing…" : "Session file (JSONL)"}
				</button>
			</div>
			<p class="hint">{persisted ? "The page shows the conversation to read; the file holds every branch, for pi or Skiff." : "Nothing is recorded yet: the session is written from its first message."}</p>
			{saved && (
				<p class="result" role="status">
					Saved {saved}.
				</p>
			)}
			{error && (
				<p class="error-text" role="alert">
					{redact(error)}
				</p>
			)}
		</PanelSection>
	);
}

function MemorySection({ controller, state }: Omit<SectionProps, "sessionId">) {
	const memory = state.memory;
	const [query, setQuery] = useState(memory?.query ?? "");
	if (!memory) return null;
	const { status, entries } = memory;
	const remote = status?.remote;
	return (
		<PanelSection title="Memory">
			{status ? (
				<div class={`memory-status${status.healthy ? " ok" : " failing"}`}>
					<p>
						<strong>{status.backend === "off" ? "Memory is off" : `${status.backend === "local" ? "Local notes" : "Remote server"}: ${status.healthy ? "working" : "not working"}`}</strong>
					</p>
					{(status.backend !== "local" || !status.healthy) && <p class="hint">{redact(status.detail)}</p>}
					{remote && (
						<dl class="stats">
							<div>
								<dt>Server</dt>
								<dd>{remote.reachable ? "reachable" : "unreachable"}</dd>
							</div>
							<div>
								<dt>Bank</dt>
								<dd title={remote.bank}>
									{remote.bank}
									{remote.bankExists === false ? " (not created yet)" : ""}
								</dd>
							</div>
							<div>
								<dt>Scoping</dt>
								<dd>{remote.scoping}</dd>
							</div>
							<div>
								<dt>Token</dt>
								<dd>{remote.remoteApiToken ? `set ${remote.remoteApiToken}` : "none"}</dd>
							</div>
						</dl>
					)}
				</div>
			) : memory.statusError ? (
				<p class="error-text">{redact(memory.statusError)}</p>
			) : (
				<p class="hint">Checking the memory…</p>
			)}
			<form
				class="inline-form"
				role="search"
				onSubmit={(e) => {
					e.preventDefault();
					void state.loadEntries(query);
				}}
			>
				<input type="search" aria-label="Search what the agent remembers" placeholder="Search memories…" value={query} onInput={(e) => setQuery((e.target as HTMLInputElement).value)} />
				<button type="submit" class="small">
					Search
				</button>
			</form>
			{entries && (
				<p class="hint" title={entries.path}>
					{memory.query.trim()
						? `${plural(entries.entries.length, "match", "matches")} among ${plural(entries.total, "entry", "entries")}`
						: entries.total === 0
							? "Nothing remembered yet"
							: `${plural(entries.total, "entry", "entries")}, newest first`}
					{entries.namespace === "persona" ? " in the persona's store" : " in this project's store"}
					{status && status.backend !== "local" ? " (the agent reads it only with the local backend)." : "."}
				</p>
			)}
			{entries && entries.entries.length > 0 && (
				<ul class="memory-list">
					{entries.entries.map((entry) => (
						<li key={entry.id} class={memory.selected.has(entry.id) ? "chosen" : undefined}>
							<label class="check">
								<input type="checkbox" checked={memory.selected.has(entry.id)} onChange={() => state.toggleEntry(entry.id)} aria-label={`Choose to forget: ${redact(entry.content).slice(0, 60)}`} />
								<span class="memory-text">
									{redact(entry.content)}
									{entry.truncated && "…"}
								</span>
							</label>
							<span class="memory-meta">
								{entry.tags.map((tag) => (
									<span key={tag} class="tag">
										{tag}
									</span>
								))}
								<span>{relativeTime(Date.parse(entry.created))}</span>
							</span>
						</li>
					))}
				</ul>
			)}
			{memory.entriesError && (
				<p class="error-text" role="alert">
					{redact(memory.entriesError)}
				</p>
			)}
			<div class="button-row">
				<button type="button" class="small danger" disabled={memory.selected.size === 0 || memory.forgetting || !controller.state.ready} onClick={() => void state.forgetSelected()}>
					{memory.selected.size ? `Forget ${plural(memory.selected.size, "entry", "entries")}` : "Forget"}
				</button>
				<button type="button" class="small ghost" disabled={memory.loading} onClick={() => void state.refreshMemory()}>
					Refresh
				</button>
			</div>
			{memory.forgotten && (
				<p class="result" role="status">
					{memory.forgotten}
				</p>
			)}
		</PanelSection>
	);
}

function DoctorSection({ controller, state, sessionId }: SectionProps) {
	const { running, checkModel, checks, error } = state.doctor;
	return (
		<PanelSection title="Doctor">
			<label class="check">
				<input type="checkbox" checked={checkModel} onChange={(e) => state.setCheckModel((e.target as HTMLInputElement).checked)} />
				<span>Also ask the model if it answers (sends it one small request)</span>
			</label>
			<div>
				<button type="button" class="small" disabled={running || !controller.state.ready} onClick={() => void state.runDoctor(sessionId)}>
					{running ? "Checking…" : checks ? "Check again" : "Run the checks"}
				</button>
			</div>
			{checks && (
				<ul class="checks">
					{checks.map((check) => {
						// One verdict per check: passed, failed, or passed with a caution (open, as asked: its detail says to whom).
						const verdict = !check.ok ? "failed" : check.caution ? "caution" : "ok";
						return (
							<li key={check.id} class={verdict} data-check={check.id}>
								<span class="mark" aria-hidden="true">
									{verdict === "ok" ? "✓" : "!"}
								</span>
								<div>
									<p class="check-title">
										{check.title}
										<span class="sr-only">{verdict === "ok" ? ": passed" : `: ${verdict}`}</span>
									</p>
									<p class="hint">{redact(check.detail)}</p>
									{verdict !== "ok" && check.fix && <p class="fix">{redact(check.fix)}</p>}
								</div>
							</li>
						);
					})}
				</ul>
			)}
			{error && (
				<p class="error-text" role="alert">
					The checks did not finish: {redact(error)}
				</p>
			)}
		</PanelSection>
	);
}

function PruneSection({ controller, state }: Omit<SectionProps, "sessionId">) {
	const [days, setDays] = useState(String(DEFAULT_PRUNE_DAYS));
	const { running, listed, removed, error } = state.prune;
	const value = Number(days);
	const valid = days.trim() !== "" && Number.isFinite(value) && value > 0 && value <= 36_500;
	return (
		<PanelSection title="Old sessions">
			<form
				class="inline-form prune-form"
				onSubmit={(e) => {
					e.preventDefault();
					if (valid) void state.listPrunable(value);
				}}
			>
				<label for="prune-days">Not touched for more than</label>
				<input id="prune-days" type="text" inputMode="decimal" value={days} aria-invalid={valid ? undefined : "true"} aria-describedby="prune-about" onInput={(e) => setDays((e.target as HTMLInputElement).value)} />
				<span>days</span>
				<button type="submit" class="small" disabled={!valid || running || !controller.state.ready}>
					Find
				</button>
			</form>
			<p class="hint" id="prune-about">
				{valid ? "Lists them first; nothing is removed until you confirm. Open sessions are never removed." : "Days: a number above 0 (at most 36,500)."}
			</p>
			{listed && (
				<div class="prune-list" role="status">
					{listed.sessions.length === 0 ? (
						<p>No session is that old.</p>
					) : (
						<>
							<p>
								{plural(listed.sessions.length, "session", "sessions")} ({byteSize(listed.totalBytes)}) would be removed:
							</p>
							<ul>
								{listed.sessions.slice(0, PRUNE_LIST_MAX).map((s) => (
									<li key={s.path} title={s.path}>
										<code>{shortFolder(s.path)}</code> <span class="hint">{relativeTime(Date.parse(s.modified))}</span>
									</li>
								))}
								{listed.sessions.length > PRUNE_LIST_MAX && <li class="hint">and {number(listed.sessions.length - PRUNE_LIST_MAX)} more</li>}
							</ul>
							<div class="button-row">
								<button type="button" class="small danger" disabled={running} onClick={() => void state.confirmPrune()}>
									Remove {plural(listed.sessions.length, "session", "sessions")}
								</button>
								<button type="button" class="small ghost" disabled={running} onClick={() => state.cancelPrune()}>
									Cancel
								</button>
							</div>
						</>
					)}
				</div>
			)}
			{removed && (
				<p class="result" role="status">
					Removed {plural(removed.sessions.length, "session", "sessions")} ({byteSize(removed.totalBytes)}).
					{removed.failed.length > 0 && ` ${plural(removed.failed.length, "file", "files")} could not be removed: ${removed.failed.map((f) => `${shortFolder(f.path)} (${f.error})`).join("; ")}.`}
				</p>
			)}
			{error && (
				<p class="error-text" role="alert">
					{redact(error)}
				</p>
			)}
		</PanelSection>
	);
}
