/**
 * Personas: the durable named agents visible from the current session's folder, with their memory entries and
 * archived sessions; a new one from the service's template; one opened to read and edit its persona.md (the
 * service validates it, and its error is shown under the editor), to run it on a task (a job, shown in the
 * Jobs panel), to remove its definition (memory and sessions stay) or, after typing its name, to purge it all.
 */
import { useContext, useEffect, useState } from "preact/hooks";
import type { Job, PersonaRow } from "../../../../src/client/index.js";
import type { PersonasState } from "../../state/personas-state";
import { JobLinkContext } from "../job-link";
import { clearIfUnchanged } from "../sent-field";
import type { PanelProps } from "./panel";
import { EmptyState, PanelLayout, PanelSection } from "./panel-layout";

export function PersonasPanel({ controller }: PanelProps) {
	const personas = controller.personas;
	const { ready } = controller.state;
	useEffect(() => {
		if (ready && !personas.current()) void personas.refresh();
	}, [ready, controller.state.sessionId]);
	if (personas.detail) return <PersonaDetailView key={personas.detail.row.name} personas={personas} ready={ready} />;
	return (
		<PanelLayout title="Personas">
			<CreateForm personas={personas} ready={ready} />
			<PanelSection title="Personas">
				{personas.personas.length === 0 ? (
					<EmptyState title={personas.loaded ? "No personas yet" : "Loading…"}>
						{personas.loaded && <p class="hint">A persona is an agent with a name, its own memory and a history that carries over between runs.</p>}
					</EmptyState>
				) : (
					<ul class="persona-list">
						{personas.personas.map((row) => (
							<li key={row.name} data-defined={String(row.defined)}>
								<button type="button" class="persona-open" onClick={() => void personas.open(row.name)}>
									<span class="persona-title">
										<span>{row.name}</span>
										<PersonaTags row={row} />
									</span>
									{row.description && <span class="persona-description">{row.description}</span>}
									<Counts row={row} />
									{row.error && <span class="persona-error">{row.error}</span>}
								</button>
							</li>
						))}
					</ul>
				)}
			</PanelSection>
		</PanelLayout>
	);
}

function PersonaTags({ row }: { row: PersonaRow }) {
	return (
		<span class="persona-tags">
			{row.scope === "project" && <span class="tag">project</span>}
			{!row.defined && <span class="tag muted">removed</span>}
		</span>
	);
}

function Counts({ row }: { row: PersonaRow }) {
	return (
		<span class="persona-counts">
			<span>{plural(row.memoryEntries, "memory entry", "memory entries")}</span>
			<span>{plural(row.sessionCount, "session", "sessions")}</span>
		</span>
	);
}

/** A name, and a persona created from the service's template, then opened to be edited. */
function CreateForm({ personas, ready }: { personas: PersonasState; ready: boolean }) {
	const [name, setName] = useState("");
	const [error, setError] = useState<string>();
	const [busy, setBusy] = useState(false);
	const submit = async (event: Event) => {
		event.preventDefault();
		if (!name.trim()) return;
		setBusy(true);
		const outcome = await personas.create(name.trim());
		setBusy(false);
		if (outcome.ok) clearIfUnchanged(setName, name);
		setError(outcome.ok ? undefined : outcome.error);
	};
	return (
		<PanelSection title="New persona">
			<form class="persona-create" onSubmit={(e) => void submit(e)}>
				<label class="field">
					<span>Name</span>
					<input
						name="persona-name"
						value={name}
						maxLength={64}
						autocomplete="off"
						spellcheck={false}
						aria-invalid={error ? "true" : undefined}
						aria-describedby="persona-create-help"
						placeholder="e.g. reviewer"
						onInput={(e) => {
							setName((e.target as HTMLInputElement).value);
							setError(undefined);
						}}
					/>
				</label>
				{error ? (
					<p class="error-text" id="persona-create-help" role="alert">
						{error}
					</p>
				) : (
					<p class="hint" id="persona-create-help">
						Letters, digits, _ or -. It starts from a template you then edit.
					</p>
				)}
				<button type="submit" class="primary" disabled={!ready || busy || !name.trim()}>
					Create from template
				</button>
			</form>
		</PanelSection>
	);
}

function PersonaDetailView({ personas, ready }: { personas: PersonasState; ready: boolean }) {
	const { row, content } = personas.detail!;
	return (
		<PanelLayout
			title={row.name}
			actions={
				<button type="button" class="small" onClick={() => personas.close()}>
					Back
				</button>
			}
		>
			<PanelSection title="About">
				<p class="persona-title">
					<span>{row.description ?? (row.defined ? "" : "Its definition was removed: its memory and sessions remain until purged.")}</span>
					<PersonaTags row={row} />
				</p>
				<Counts row={row} />
				{row.model && <p class="hint">Model {row.model}</p>}
				{row.error && <p class="error-text">{row.error}</p>}
			</PanelSection>
			{row.defined && <RunForm personas={personas} row={row} ready={ready} />}
			{row.defined && <Editor personas={personas} name={row.name} content={content} ready={ready} />}
			<DangerZone personas={personas} row={row} ready={ready} />
		</PanelLayout>
	);
}

/** persona_run with a task; the job it starts can be opened in the Jobs panel. */
function RunForm({ personas, row, ready }: { personas: PersonasState; row: PersonaRow; ready: boolean }) {
	const link = useContext(JobLinkContext);
	const [task, setTask] = useState("");
	const [error, setError] = useState<string>();
	const [started, setStarted] = useState<Job>();
	const [busy, setBusy] = useState(false);
	const submit = async (event: Event) => {
		event.preventDefault();
		if (!task.trim()) return;
		setBusy(true);
		const outcome = await personas.run(row.name, task);
		setBusy(false);
		if (outcome.ok) {
			clearIfUnchanged(setTask, task);
			setStarted(outcome.value);
		}
		setError(outcome.ok ? undefined : outcome.error);
	};
	return (
		<PanelSection title="Run">
			<form class="persona-run" onSubmit={(e) => void submit(e)}>
				<label class="field">
					<span>Task</span>
					<textarea
						name="persona-task"
						rows={3}
						value={task}
						placeholder={`What should ${row.name} do?`}
						onInput={(e) => {
							setTask((e.target as HTMLTextAreaElement).value);
							setError(undefined);
						}}
					/>
				</label>
				{error && (
					<p class="error-text" role="alert">
						{error}
					</p>
				)}
				<button type="submit" class="primary" disabled={!ready || busy || !task.trim() || Boolean(row.error)}>
					Run {row.name}
				</button>
				{started && (
					<p class="persona-started" role="status">
						<span>Started job {started.id}.</span>
						{link && (
							<button type="button" class="link" onClick={() => link.open(started.id)}>
								Open in Jobs
							</button>
						)}
					</p>
				)}
			</form>
		</PanelSection>
	);
}

/** persona.md in a text box: Save sends it to the service, which refuses an invalid one with the reason. */
function Editor({ personas, name, content, ready }: { personas: PersonasState; name: string; content: string; ready: boolean }) {
	const [text, setText] = useState(content);
	const [error, setError] = useState<string>();
	const [saved, setSaved] = useState(false);
	const [busy, setBusy] = useState(false);
	const changed = text !== content;
	const save = async (event: Event) => {
		event.preventDefault();
		setBusy(true);
		const outcome = await personas.save(name, text);
		setBusy(false);
		setError(outcome.ok ? undefined : outcome.error);
		setSaved(outcome.ok);
	};
	return (
		<PanelSection title="Definition">
			<form class="persona-edit" onSubmit={(e) => void save(e)}>
				<textarea
					name="persona-content"
					aria-label={`${name}'s persona.md`}
					rows={14}
					spellcheck={false}
					value={text}
					aria-invalid={error ? "true" : undefined}
					onInput={(e) => {
						setText((e.target as HTMLTextAreaElement).value);
						setSaved(false);
					}}
				/>
				{error ? (
					<p class="error-text" role="alert">
						{error}
					</p>
				) : (
					<p class="hint" role="status">
						{saved && !changed ? "Saved." : "Frontmatter (name, description, model, thinking, tools, maxTurns, timeoutSeconds), then the system prompt."}
					</p>
				)}
				<div class="row">
					<button
						type="button"
						disabled={!changed || busy}
						onClick={() => {
							setText(content);
							setError(undefined);
						}}
					>
						Revert
					</button>
					<button type="submit" class="primary" disabled={!ready || !changed || busy}>
						Save
					</button>
				</div>
			</form>
		</PanelSection>
	);
}

/**
 * Two different deletions, each asked for apart: removing the definition (a plain confirmation; memory and
 * sessions stay) and purging the whole folder (only once the persona's name is typed).
 */
function DangerZone({ personas, row, ready }: { personas: PersonasState; row: PersonaRow; ready: boolean }) {
	const [asking, setAsking] = useState<"remove" | "purge">();
	const [typed, setTyped] = useState("");
	const [error, setError] = useState<string>();
	const [busy, setBusy] = useState(false);
	const act = async (which: "remove" | "purge") => {
		setBusy(true);
		const outcome = which === "remove" ? await personas.remove(row.name) : await personas.purge(row.name);
		setBusy(false);
		if (outcome.ok) setAsking(undefined);
		setError(outcome.ok ? undefined : outcome.error);
	};
	const ask = (which: "remove" | "purge" | undefined) => {
		setAsking(which);
		setTyped("");
		setError(undefined);
	};
	const keeps = `${plural(row.memoryEntries, "memory entry", "memory entries")} and ${plural(row.sessionCount, "archived session", "archived sessions")}`;
	return (
		<PanelSection title="Remove">
			{!asking && (
				<div class="persona-danger">
					{row.defined && (
						<button type="button" class="danger" onClick={() => ask("remove")}>
							Remove definition…
						</button>
					)}
					<button type="button" class="danger" onClick={() => ask("purge")}>
						Purge everything…
					</button>
				</div>
			)}
			{asking === "remove" && (
				<div class="confirm" role="group" aria-label="Confirm removing the definition">
					<p>
						Remove <strong>{row.name}</strong>'s persona.md? Its {keeps} stay; you can purge them later.
					</p>
					<div class="row">
						<button type="button" onClick={() => ask(undefined)}>
							Keep it
						</button>
						<button type="button" class="danger" disabled={!ready || busy} onClick={() => void act("remove")}>
							Remove definition
						</button>
					</div>
				</div>
			)}
			{asking === "purge" && (
				<div class="confirm strong" role="group" aria-label="Confirm purging the persona">
					<p>
						Purge <strong>{row.name}</strong>: its definition, {keeps} are deleted for good. Type its name to confirm.
					</p>
					<input
						name="purge-confirm"
						aria-label={`Type ${row.name} to confirm`}
						autocomplete="off"
						spellcheck={false}
						value={typed}
						onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
					/>
					<div class="row">
						<button type="button" onClick={() => ask(undefined)}>
							Cancel
						</button>
						<button type="button" class="danger solid" disabled={!ready || busy || typed !== row.name} onClick={() => void act("purge")}>
							Purge {row.name}
						</button>
					</div>
				</div>
			)}
			{error && (
				<p class="error-text" role="alert">
					{error}
				</p>
			)}
		</PanelSection>
	);
}

function plural(n: number, one: string, many: string): string {
	return `${n} ${n === 1 ? one : many}`;
}
