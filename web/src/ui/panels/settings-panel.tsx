/**
 * Settings. At the top, this session's model and thinking level (`set_model`, `set_thinking_level`). Below,
 * the saved settings: every key of the catalog (settings_inspect) grouped by category, with a search, a typed
 * editor per key and the service's checks inline. Changes gather in a draft of the global file or of this
 * project's file (trusted explicitly first), shown as a diff until applied; the outcome says what took effect
 * at once, what waits for new sessions and what for a restart. Also the access token saved in this tab.
 */
import { useEffect, useState } from "preact/hooks";
import type { SettingView, ThinkingLevel } from "../../../../src/client/index.js";
import { REDACTED, redact } from "../../render/redact";
import type { Controller } from "../../state/controller";
import type { SettingsState } from "../../state/settings-state";
import type { PanelProps } from "./panel";
import { AlertSettings } from "./alert-settings";
import { EmptyState, PanelLayout, PanelSection } from "./panel-layout";
import { McpServers } from "./mcp-servers";
import { formatValue, SettingEditor } from "./setting-editor";

export function SettingsPanel({ controller }: PanelProps) {
	const { sessionId, ready, hasToken } = controller.state;
	const settings = controller.settings;
	useEffect(() => {
		if (sessionId && ready) settings.ensure(sessionId);
	}, [sessionId, ready, settings]);
	return (
		<PanelLayout title="Settings">
			<SessionSection controller={controller} />
			<AlertSettings />
			<McpServers controller={controller} />
			<SavedSettings controller={controller} settings={settings} />
			{hasToken && (
				<PanelSection title="Access">
					<p class="hint">An access token is saved in this tab (sessionStorage) and offered at every connect.</p>
					<div>
						<button type="button" class="small" onClick={() => controller.forgetToken()}>
							Forget the token
						</button>
					</div>
				</PanelSection>
			)}
		</PanelLayout>
	);
}

/** The current session's model and thinking level, changed at once (not saved: see the defaults below). */
function SessionSection({ controller }: { controller: Controller }) {
	const { models, thinkingLevels, session, ready } = controller.state;
	const model = controller.model();
	const current = model ? `${model.provider}/${model.id}` : "";
	const onlyOff = thinkingLevels.length <= 1;
	const thinkingReason = !model ? "Choose a model first." : `${model.name ?? model.id} does not think: it supports no level but off.`;
	return (
		<PanelSection title="This session">
			{models.length === 0 ? (
				<EmptyState title="No models available">
					<span>No provider has credentials yet. The card in the conversation says how to set one up.</span>
				</EmptyState>
			) : (
				<label class="field">
					<span>Model</span>
					<select
						name="model"
						value={current}
						disabled={!ready}
						onChange={(e) => {
							const [provider, ...id] = (e.target as HTMLSelectElement).value.split("/");
							void controller.setModel(provider!, id.join("/"));
						}}
					>
						{!current && <option value="">Choose a model…</option>}
						{models.map((m) => (
							<option key={`${m.provider}/${m.id}`} value={`${m.provider}/${m.id}`}>
								{m.provider}/{m.name ?? m.id}
							</option>
						))}
					</select>
				</label>
			)}
			<label class="field">
				<span>Thinking level</span>
				<select
					name="thinking"
					value={session?.thinkingLevel ?? "off"}
					disabled={!ready || onlyOff}
					aria-describedby={onlyOff ? "thinking-reason" : undefined}
					onChange={(e) => void controller.setThinkingLevel((e.target as HTMLSelectElement).value as ThinkingLevel)}
				>
					{(thinkingLevels.length ? thinkingLevels : ["off"]).map((level) => (
						<option key={level} value={level}>
							{level}
						</option>
					))}
				</select>
				{onlyOff && (
					<span id="thinking-reason" class="hint">
						{thinkingReason}
					</span>
				)}
			</label>
			<p class="hint">For this session only. The defaults of new sessions are under Models below.</p>
		</PanelSection>
	);
}

function SavedSettings({ controller, settings }: { controller: Controller; settings: SettingsState }) {
	const [query, setQuery] = useState("");
	const { inspection, scope } = settings;
	const ready = controller.state.ready;
	if (!inspection) {
		return settings.error ? (
			<PanelSection title="Saved settings">
				<p class="error-text">{redact(settings.error)}</p>
				<div>
					<button type="button" class="small" onClick={() => void settings.load()}>
						Try again
					</button>
				</div>
			</PanelSection>
		) : (
			<p class="hint">Reading the settings…</p>
		);
	}
	const projectLocked = scope === "project" && !inspection.projectTrusted;
	const words = query.toLowerCase().split(/\s+/).filter(Boolean);
	const matching = inspection.values.filter((v) => words.every((w) => `${v.key} ${v.category} ${v.description} ${v.allowed}`.toLowerCase().includes(w)));
	const categories = new Map<string, SettingView[]>();
	for (const view of matching) categories.set(view.category, [...(categories.get(view.category) ?? []), view]);
	const suggestions = {
		defaultProvider: [...new Set(controller.state.models.map((m) => m.provider))],
		defaultModel: controller.state.models.map((m) => m.id),
	} as Record<string, string[]>;
	const memory = controller.state.memory;
	// What stops the draft from being applied shows under the key it names too, not only in the pending box.
	const draftProblems = new Map(settings.drafts[scope]?.problems.map((p) => [p.key, p.message]));

	return (
		<>
			<PanelSection title="Saved settings">
				<div class="segmented" role="group" aria-label="Which settings file">
					<button type="button" aria-pressed={scope === "global"} onClick={() => settings.setScope("global")}>
						Global
					</button>
					<button type="button" aria-pressed={scope === "project"} onClick={() => settings.setScope("project")}>
						This project
					</button>
				</div>
				<p class="hint settings-file">
					{scope === "global" ? "Every session reads " : "Sessions in this project read "}
					<code title={scope === "global" ? inspection.globalPath : inspection.projectPath}>{scope === "global" ? inspection.globalPath : inspection.projectPath}</code>
					{scope === "project" && inspection.projectTrusted && " over the global file."}
				</p>
				{scope === "project" && <TrustCard settings={settings} trusted={inspection.projectTrusted} folder={inspection.projectFolder} ready={ready} />}
				{[inspection.globalError, scope === "project" ? inspection.projectError : undefined, ...inspection.problems.map((p) => p.message)]
					.filter((m): m is string => Boolean(m))
					.map((message) => (
						<p key={message} class="error-text">
							{redact(message)}
						</p>
					))}
				{!projectLocked && (
					<input
						type="search"
						class="settings-search"
						aria-label="Search settings"
						placeholder={`Search ${inspection.values.length} settings…`}
						value={query}
						onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
					/>
				)}
			</PanelSection>
			{!projectLocked &&
				(categories.size === 0 ? (
					<EmptyState title="No setting matches">
						<span>Search by key, description or category.</span>
					</EmptyState>
				) : (
					[...categories].map(([category, views]) => (
						<PanelSection key={category} title={`${category.charAt(0).toUpperCase()}${category.slice(1)}`}>
							{category === "memory" && memory && (
								<p class="hint memory-tools">{memory.activeTools.length ? `Memory tools the agent has now: ${memory.activeTools.join(", ")}.` : "The agent has no memory tools now."}</p>
							)}
							{views.map((view) => {
								const shown = settings.valueOf(view);
								const editable = scope === "global" ? view.editableGlobal : view.editableProject;
								return (
									<SettingEditor
										key={`${scope}:${view.key}:${JSON.stringify(shown.value) ?? ""}:${shown.set}`}
										view={view}
										scope={scope}
										shown={shown}
										error={settings.keyErrors[view.key] ?? draftProblems.get(view.key)}
										disabled={!ready || settings.working}
										lockedReason={editable ? undefined : scope === "project" && !view.scopes.includes("project") ? "global file only" : "not editable here"}
										suggestions={suggestions[view.key]}
										onSet={(value) => void settings.set(view.key, value)}
										onReset={() => void settings.reset(view.key)}
									/>
								);
							})}
						</PanelSection>
					))
				))}
			<PendingChanges settings={settings} ready={ready} />
		</>
	);
}

/** Trusting the project is explicit: its settings file changes nothing until then. */
function TrustCard({ settings, trusted, folder, ready }: { settings: SettingsState; trusted: boolean; folder: string; ready: boolean }) {
	return trusted ? (
		<div class="trust trusted">
			<p class="hint">
				<strong>Trusted project.</strong> Its <code>.skiff/settings.json</code> counts for sessions in <code title={folder}>{folder}</code>.
			</p>
			<button type="button" class="link" disabled={!ready || settings.working} onClick={() => void settings.trust(false)}>
				Stop trusting it
			</button>
		</div>
	) : (
		<div class="trust">
			<p>
				<strong>This project is not trusted.</strong> Its <code>.skiff/settings.json</code> is ignored, so a folder you open cannot change the agent (its
				model, its memory) behind your back. Trust it only if you know who wrote that file.
			</p>
			<p class="hint">
				Folder: <code title={folder}>{folder}</code>
			</p>
			<div>
				<button type="button" class="small" disabled={!ready || settings.working} onClick={() => void settings.trust(true)}>
					Trust this project
				</button>
			</div>
		</div>
	);
}

/** The draft's changes as a diff (file now → after), its problems, and Apply / Discard; then the outcome. */
function PendingChanges({ settings, ready }: { settings: SettingsState; ready: boolean }) {
	const changes = settings.pending();
	const draft = settings.drafts[settings.scope];
	const { outcome, actionError } = settings;
	if (changes.length === 0 && !outcome && !actionError) return null;
	const show = (value: unknown, secret: boolean) => (secret && value !== undefined ? REDACTED : formatValue(value));
	return (
		<div class="settings-pending" role="region" aria-label="Pending changes">
			{changes.length > 0 && draft && (
				<>
					{/* One line while closed: the changed keys are marked in place, so the diff opens only when asked for. */}
					<details class="pending-diff">
						<summary class="pending-title">
							{changes.length === 1 ? "1 change" : `${changes.length} changes`} to <span title={draft.path}>{draft.scope === "global" ? "the global settings" : "this project's settings"}</span>
						</summary>
						<ul class="diff">
							{changes.map((change) => (
								<li key={change.key}>
									<code>{change.key}</code>
									<span class="before">{redact(show(change.before, change.secret))}</span>
									<span aria-hidden="true">→</span>
									<span class="sr-only">becomes</span>
									<span class="after">{redact(show(change.after, change.secret))}</span>
								</li>
							))}
						</ul>
					</details>
					{draft.problems.map((problem) => (
						<p key={problem.key + problem.message} class="error-text">
							{redact(problem.message)}
						</p>
					))}
				</>
			)}
			{actionError && (
				<p class="error-text" role="alert">
					{redact(actionError.message)}
					{actionError.stale && " Discard the draft and make the change again on the file as it is now."}
				</p>
			)}
			{changes.length > 0 && (
				<div class="pending-buttons">
					<button type="button" class="small" disabled={settings.working} onClick={() => void settings.discard()}>
						Discard
					</button>
					<button type="button" class="primary small" disabled={!ready || settings.working || (draft?.problems.length ?? 0) > 0} onClick={() => void settings.apply()}>
						{settings.working ? "Applying…" : "Apply"}
					</button>
				</div>
			)}
			{changes.length === 0 && actionError?.stale && (
				<div class="pending-buttons">
					<button type="button" class="small" onClick={() => void settings.discard()}>
						Discard the draft
					</button>
				</div>
			)}
			{outcome && changes.length === 0 && <Outcome outcome={outcome} />}
		</div>
	);
}

function Outcome({ outcome }: { outcome: NonNullable<SettingsState["outcome"]> }) {
	const { result } = outcome;
	const lines: Array<[string, string[]]> = [
		["Live now", result.appliedLive],
		["In new sessions", result.newSessions],
		["After a restart", result.restartRequired],
	];
	const title =
		outcome.kind === "trust"
			? outcome.result.trusted
				? "The project is trusted."
				: "The project is no longer trusted."
			: result.keys.length === 0
				? "Nothing to change: the file already says this."
				: `Saved to ${outcome.result.scope === "global" ? "the global settings" : "this project's settings"}.`;
	return (
		<div class="settings-outcome" role="status">
			<p class="pending-title">{title}</p>
			{result.keys.length > 0 ? (
				<dl>
					{lines
						.filter(([, keys]) => keys.length > 0)
						.map(([label, keys]) => (
							<div key={label}>
								<dt>{label}</dt>
								<dd>{keys.join(", ")}</dd>
							</div>
						))}
				</dl>
			) : (
				outcome.kind === "trust" && <p class="hint">No setting changed value.</p>
			)}
		</div>
	);
}
