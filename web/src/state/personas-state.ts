/**
 * The Personas panel's state: the personas visible from the current session's folder (with their memory entry
 * and session counts) and the one opened, with its persona.md. Every command answers with the service's error
 * message instead of raising a toast, so the panel can show it next to the control that caused it.
 */
import type { Job, PersonaRow } from "../../../src/client/index.js";
import { FINISHED } from "./jobs-state";
import { failureText, type PanelContext, runCommand } from "./panel-context";

/** A persona opened in the panel: its row and persona.md as the service last gave them. */
export interface PersonaDetail {
	row: PersonaRow;
	content: string;
}

/** What a command did: its error message when the service refused it. */
export type Outcome<T = undefined> = { ok: true; value: T } | { ok: false; error: string };

export class PersonasState {
	personas: PersonaRow[] = [];
	loaded = false;
	detail: PersonaDetail | undefined;
	/** Bumped on every change. */
	version = 0;
	private forSession: string | undefined;

	constructor(private readonly context: PanelContext) {
		// A persona's finished run is archived as one more session: the counts change.
		context.client.onEvent((event) => {
			if (event.type === "job_updated" && event.job.persona && FINISHED.has(event.job.status) && event.sessionId === this.forSession) void this.refresh();
		});
	}

	/** Loads the list (again when the session, and so the project folder, changed). */
	async refresh(): Promise<void> {
		const sessionId = this.context.sessionId();
		if (!sessionId) return;
		const list = await runCommand(this.context, "persona_list", "persona_list", {}, sessionId);
		if (!list || sessionId !== this.context.sessionId()) return;
		const { personas } = list.data;
		this.forSession = sessionId;
		this.personas = personas;
		this.loaded = true;
		if (this.detail) {
			const row = personas.find((p) => p.name === this.detail!.row.name);
			this.detail = row ? { ...this.detail, row } : undefined;
		}
		this.touch();
	}

	/** Whether the list belongs to the current session (else refresh). */
	current(): boolean {
		return this.loaded && this.forSession === this.context.sessionId();
	}

	/** Opens a persona: its row and persona.md. */
	async open(name: string): Promise<Outcome> {
		const result = await this.command(() => this.context.client.call("persona_get", { name }, { sessionId: this.context.sessionId() }));
		if (!result.ok) return result;
		const { content, ...row } = result.value;
		this.detail = { row, content };
		this.touch();
		return { ok: true, value: undefined };
	}

	close(): void {
		this.detail = undefined;
		this.touch();
	}

	/** Creates a user persona from the service's template and opens it, to be edited. */
	async create(name: string): Promise<Outcome> {
		const result = await this.command(() => this.context.client.call("persona_create", { name }, { sessionId: this.context.sessionId() }));
		if (!result.ok) return result;
		await this.refresh();
		return this.open(name);
	}

	/** Replaces persona.md (the service validates it first: a bad definition changes nothing). */
	async save(name: string, content: string): Promise<Outcome> {
		const result = await this.command(() => this.context.client.call("persona_edit", { name, content }, { sessionId: this.context.sessionId() }));
		if (!result.ok) return result;
		if (this.detail?.row.name === name) this.detail = { row: result.value, content };
		await this.refresh();
		return { ok: true, value: undefined };
	}

	/** Deletes persona.md only: memory and sessions stay. */
	async remove(name: string): Promise<Outcome> {
		const result = await this.command(() => this.context.client.call("persona_remove", { name, confirm: true }, { sessionId: this.context.sessionId() }));
		if (!result.ok) return result;
		await this.refresh();
		if (this.detail?.row.name === name) await this.open(name);
		return { ok: true, value: undefined };
	}

	/** Deletes the persona's whole folder, and closes it. */
	async purge(name: string): Promise<Outcome> {
		const result = await this.command(() => this.context.client.call("persona_purge", { name, confirm: true }, { sessionId: this.context.sessionId() }));
		if (!result.ok) return result;
		if (this.detail?.row.name === name) this.detail = undefined;
		await this.refresh();
		return { ok: true, value: undefined };
	}

	/** Runs the persona on a task: a job of the current session (the Jobs panel shows it). */
	async run(name: string, task: string): Promise<Outcome<Job>> {
		const result = await this.command(() => this.context.client.call("persona_run", { name, task }, { sessionId: this.context.sessionId() }));
		return result.ok ? { ok: true, value: result.value.job } : result;
	}

	private async command<T>(call: () => Promise<T>): Promise<Outcome<T>> {
		try {
			return { ok: true, value: await call() };
		} catch (error) {
			return { ok: false, error: failureText(error) };
		}
	}

	private touch(): void {
		this.version++;
		this.context.changed();
	}
}
