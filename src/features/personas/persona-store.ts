/**
 * Personas on disk: durable named agents, each a root folder `<agent-dir>/personas/<name>/` (user scope) or
 * `<cwd>/.skiff/personas/<name>/` (project scope, trusted projects only) holding `persona.md` (frontmatter as
 * an agent definition, body as system prompt), its local memory `memory/entries.jsonl` and its archived run
 * transcripts `sessions/*.jsonl`. Roots that are symbolic links, and definitions whose name is not their
 * folder's, are refused. Nothing is half-created: a failed create leaves no folder behind.
 */
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { LocalMemoryStore, personaStorePath } from "../memory/index.js";
import { CodedError } from "../../shared/errors.js";
import { isSymbolicLink } from "../../shared/path-kind.js";
import { writeFileAtomic } from "../atomic-file.js";
import { AGENT_NAME_PATTERN, type AgentDefinition, type CatalogEntry, MAX_DEFINITION_BYTES, parseDefinition, TASK_AGENT } from "../jobs/index.js";
import { archivedTranscripts, continuityText } from "./continuity.js";
import type { PersonaRow, PersonaScope } from "./schemas.js";

export const PERSONA_FILE = "persona.md";
export const MAX_PERSONA_BYTES = MAX_DEFINITION_BYTES;
const NAME = new RegExp(AGENT_NAME_PATTERN);
/** Names a persona cannot take: the bundled agents'. */
const RESERVED = new Set([TASK_AGENT.name]);

interface Found {
	name: string;
	scope: PersonaScope;
	root: string;
}

/** The template of a new persona: the fields a user fills in, and a hint where the prompt goes. */
export function personaTemplate(name: string): string {
	return `---\nname: ${name}\ndescription: ${name} persona\n---\nWrite who ${name} is and how it works here: this is its system prompt.\n`;
}

export class PersonaStore {
	constructor(
		private readonly options: {
			agentDir: string;
			/** Whether a project folder is trusted (its personas count only then). */
			trusted(cwd: string): boolean;
			/** The core tools a persona's `tools` may name. */
			knownTools: readonly string[];
		},
	) {}

	/** Every persona visible from `cwd`: the project's (trusted only) first, then the user's. */
	list(cwd: string): PersonaRow[] {
		const seen = new Set<string>();
		const rows: PersonaRow[] = [];
		for (const { scope, folder } of this.scopes(cwd)) {
			let names: string[];
			try {
				names = readdirSync(folder).sort();
			} catch {
				continue;
			}
			for (const name of names) {
				if (!NAME.test(name) || seen.has(name)) continue;
				seen.add(name);
				rows.push(this.row({ name, scope, root: join(folder, name) }));
			}
		}
		return rows;
	}

	/** One persona's row and its persona.md text (empty when removed). */
	get(name: string, cwd: string): PersonaRow & { content: string } {
		const found = this.find(name, cwd);
		return { ...this.row(found), content: this.readDefinitionText(found) ?? "" };
	}

	/** Creates a persona in the user scope from `content` (default: the template). */
	create(name: string, content: string | undefined, cwd: string): PersonaRow {
		checkName(name);
		if (RESERVED.has(name)) throw new CodedError("invalid_command", `${name} is the name of a bundled agent: choose another persona name`);
		const text = content ?? personaTemplate(name);
		this.checkContent(name, text);
		const folder = join(this.options.agentDir, "personas");
		const root = join(folder, name);
		if (exists(root)) throw new CodedError("conflict", `A persona folder named ${name} already exists (persona_get shows it; persona_purge removes it)`);
		try {
			mkdirSync(folder, { recursive: true, mode: 0o700 });
			mkdirSync(root, { mode: 0o700 }); // fails if another create got there first
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new CodedError("conflict", `A persona named ${name} was just created`);
			throw new CodedError("io_error", `The persona folder for ${name} could not be created (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
		}
		try {
			writeFileAtomic(join(root, PERSONA_FILE), text);
		} catch (error) {
			rmSync(root, { recursive: true, force: true });
			throw error;
		}
		return this.row({ name, scope: "user", root });
	}

	/** Replaces a persona's definition; its name cannot change. */
	edit(name: string, content: string, cwd: string): PersonaRow {
		const found = this.find(name, cwd);
		if (this.readDefinitionText(found) === undefined) throw new CodedError("not_found", `Persona ${name} has no ${PERSONA_FILE} (it was removed): create it again with persona_create after persona_purge`);
		this.checkContent(name, content);
		writeFileAtomic(join(found.root, PERSONA_FILE), content);
		return this.row(found);
	}

	/** Deletes the definition only: its memory and sessions stay (persona_purge removes them). */
	remove(name: string, cwd: string): void {
		const found = this.find(name, cwd);
		if (this.readDefinitionText(found) === undefined) throw new CodedError("not_found", `Persona ${name} has no ${PERSONA_FILE} to remove`);
		rmSync(join(found.root, PERSONA_FILE), { force: true });
	}

	/** Deletes the persona's whole root: definition, memory and sessions. */
	purge(name: string, cwd: string): void {
		const found = this.find(name, cwd);
		try {
			rmSync(found.root, { recursive: true });
		} catch (error) {
			throw new CodedError("io_error", `Persona ${name} could not be removed (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
		}
	}

	/** A persona to run: its definition and root. Undefined when no persona has the name; throws when it cannot run. */
	resolve(name: string, cwd: string): { definition: AgentDefinition; root: string } | undefined {
		if (!NAME.test(name)) return undefined;
		const found = this.locate(name, cwd);
		if (!found) return undefined;
		const row = this.row(found);
		if (!row.defined && row.error === undefined) throw new CodedError("not_found", `Persona ${name} has no ${PERSONA_FILE} (it was removed): persona_create it again after persona_purge`);
		if (row.error !== undefined) throw new CodedError("invalid_command", `Persona ${name} cannot be run: ${row.error}`);
		return { definition: this.definitionOf(found)!, root: found.root };
	}

	/** Personas as catalog rows (for job_list's agents). */
	catalog(cwd: string): CatalogEntry[] {
		return this.list(cwd)
			.filter((row) => row.defined)
			.map((row): CatalogEntry => {
				if (row.error !== undefined) return { name: row.name, source: "persona", file: `${row.name}/${PERSONA_FILE}`, error: row.error };
				return { ...this.definitionOf(this.locate(row.name, cwd)!)!, source: "persona" };
			});
	}

	continuity(root: string): string | undefined {
		return continuityText(root);
	}

	/** Copies a finished run's transcript into `<root>/sessions/`, named so that names sort by time. */
	archive(root: string, jobId: string, sessionFile: string | undefined): void {
		if (!sessionFile || isSymbolicLink(root)) return;
		let text: string;
		try {
			text = readFileSync(sessionFile, "utf8");
		} catch {
			return; // nothing was recorded
		}
		const stamp = new Date().toISOString().replace(/[:.]/g, "-");
		writeFileAtomic(join(root, "sessions", `${stamp}_${jobId}.jsonl`), text);
	}

	private scopes(cwd: string): Array<{ scope: PersonaScope; folder: string }> {
		const scopes: Array<{ scope: PersonaScope; folder: string }> = [];
		if (this.options.trusted(cwd)) scopes.push({ scope: "project", folder: join(cwd, ".skiff", "personas") });
		scopes.push({ scope: "user", folder: join(this.options.agentDir, "personas") });
		return scopes;
	}

	private locate(name: string, cwd: string): Found | undefined {
		for (const { scope, folder } of this.scopes(cwd)) {
			const root = join(folder, name);
			if (exists(root)) return { name, scope, root };
		}
		return undefined;
	}

	/** The persona with this name, or a clear error; a symlinked root is refused for every change. */
	private find(name: string, cwd: string): Found {
		checkName(name);
		const found = this.locate(name, cwd);
		if (!found) throw new CodedError("not_found", `No persona named ${name}: persona_list lists them`);
		if (isSymbolicLink(found.root)) throw new CodedError("forbidden", `Persona ${name}'s folder is a symbolic link: personas are refused there`);
		return found;
	}

	private row(found: Found): PersonaRow {
		const row: PersonaRow = { name: found.name, scope: found.scope, defined: false, memoryEntries: 0, sessionCount: 0 };
		if (isSymbolicLink(found.root)) return { ...row, error: "its folder is a symbolic link (refused)" };
		row.sessionCount = archivedTranscripts(found.root).length;
		try {
			row.memoryEntries = new LocalMemoryStore(personaStorePath(found.root)).read().entries.length;
		} catch {
			row.error = "its memory file cannot be read";
		}
		const text = this.readDefinitionText(found);
		if (text === undefined) return row;
		row.defined = true;
		try {
			const definition = this.parse(found.name, text);
			row.description = definition.description;
			if (definition.model) row.model = definition.model;
		} catch (error) {
			row.error = (error as Error).message;
		}
		return row;
	}

	private definitionOf(found: Found): AgentDefinition | undefined {
		const text = this.readDefinitionText(found);
		return text === undefined ? undefined : this.parse(found.name, text);
	}

	/** persona.md's text; undefined when it does not exist. Throws for anything but a regular file of at most 256 KiB. */
	private readDefinitionText(found: Found): string | undefined {
		const path = join(found.root, PERSONA_FILE);
		let stat;
		try {
			stat = lstatSync(path);
		} catch {
			return undefined;
		}
		if (!stat.isFile()) return `---\nname: ${found.name}\n---\n`; // parsed into a clear error below
		if (stat.size > MAX_PERSONA_BYTES) return `---\n# larger than ${MAX_PERSONA_BYTES / 1024} KiB\n---\n`;
		return readFileSync(path, "utf8");
	}

	private parse(name: string, text: string): AgentDefinition {
		const definition = parseDefinition(text, "persona", this.options.knownTools);
		if (definition.name !== name) throw new Error(`its name (${definition.name}) is not its folder's (${name})`);
		return definition;
	}

	private checkContent(name: string, content: string): void {
		if (Buffer.byteLength(content) > MAX_PERSONA_BYTES) {
			throw new CodedError("invalid_command", `${PERSONA_FILE} may hold at most ${MAX_PERSONA_BYTES / 1024} KiB`);
		}
		try {
			this.parse(name, content);
		} catch (error) {
			throw new CodedError("invalid_command", `Invalid ${PERSONA_FILE} for ${name}: ${(error as Error).message}`);
		}
	}
}

function checkName(name: string): void {
	if (!NAME.test(name)) {
		throw new CodedError("invalid_command", `Invalid persona name ${JSON.stringify(name.slice(0, 70))}: use 1 to 64 letters, digits, _ or - (no / or ..)`);
	}
}

function exists(path: string): boolean {
	try {
		lstatSync(path);
		return true;
	} catch {
		return false;
	}
}

