/**
 * Personas on disk: durable named agents, each a root folder `<agent-dir>/personas/<name>/` (user scope) or
 * `<cwd>/.skiff/personas/<name>/` (project scope, trusted projects only) holding `persona.md` (frontmatter as
 * an agent definition, body as system prompt), its local memory `memory/entries.jsonl` and its archived run
 * transcripts `sessions/*.jsonl`. Roots that are symbolic links, and definitions whose name is not their
 * folder's, are refused. Nothing is half-created: a failed create leaves no folder behind.
 */
import { type BigIntStats, closeSync, fstatSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { FileCache, LocalMemoryStore, personaStorePath } from "../memory/index.js";
import { CodedError } from "../../shared/errors.js";
import { isSymbolicLink } from "../../shared/path-kind.js";
import { NotRegularFileError, openRegularFile, openRegularFileSync } from "../../shared/regular-file.js";
import { writeFileAtomic } from "../atomic-file.js";
import { AGENT_NAME_PATTERN, type AgentDefinition, type CatalogEntry, MAX_DEFINITION_BYTES, parseDefinition, TASK_AGENT } from "../jobs/index.js";
import { archiveTranscript } from "./archive.js";
import { archivedTranscripts, continuityText } from "./continuity.js";
import type { PersonaRow, PersonaScope } from "./schemas.js";

export const PERSONA_FILE = "persona.md";
export const MAX_PERSONA_BYTES = MAX_DEFINITION_BYTES;
const NAME = new RegExp(AGENT_NAME_PATTERN);
/** Names a persona cannot take: the bundled agents'. */
const RESERVED = new Set([TASK_AGENT.name]);
const SYMBOLIC_LINK_ERROR = "its folder is a symbolic link (refused)";
const MEMORY_ERROR = "its memory file cannot be read";
/** Distinct warnings remembered, so each is given once (a listing runs often); past this many, forgotten. */
const MAX_WARNED = 256;

interface Found {
	name: string;
	scope: PersonaScope;
	root: string;
}

/** A scope's folder of personas and the names in it (undefined: it cannot be listed). */
interface Listing {
	scope: PersonaScope;
	folder: string;
	names: string[] | undefined;
}

/** persona.md as read: its text, and its definition or why it is not one. */
interface DefinitionFile {
	text: string;
	definition?: AgentDefinition;
	error?: string;
}

/** The template of a new persona: the fields a user fills in, and a hint where the prompt goes. */
export function personaTemplate(name: string): string {
	return `---\nname: ${name}\ndescription: ${name} persona\n---\nWrite who ${name} is and how it works here: this is its system prompt.\n`;
}

export class PersonaStore {
	/** persona.md files read and parsed, kept while unchanged (the catalog is asked for often). */
	private readonly definitions = new FileCache<DefinitionFile>({ maxEntries: 64 });
	/** Archives being written, by persona root: what reads or removes its sessions waits for them first. */
	private readonly archiving = new Map<string, Promise<void>>();
	/** Warnings already given (see warnOnce). */
	private readonly warned = new Set<string>();

	constructor(
		private readonly options: {
			agentDir: string;
			/** Whether a project folder is trusted (its personas count only then). */
			trusted(cwd: string): boolean;
			/** The core tools a persona's `tools` may name. */
			knownTools: readonly string[];
			/** The service is stopping: a run's transcript is then archived at once (see archive.ts). */
			stopping?(): boolean;
			/** Lines for the operator: entries skipped because they are not regular files (each told once). */
			warn?(line: string): void;
		},
	) {}

	/** Every persona visible from `cwd`: the project's (trusted only) first, then the user's. */
	async list(cwd: string): Promise<PersonaRow[]> {
		const listings = await Promise.all(
			this.scopes(cwd).map(async (scope): Promise<Listing> => ({ ...scope, names: await readdir(scope.folder).catch(() => undefined) })),
		);
		const rows: PersonaRow[] = [];
		for (const found of visible(listings)) rows.push(await this.row(found));
		return rows;
	}

	/** One persona's row and its persona.md text (empty when removed). */
	async get(name: string, cwd: string): Promise<PersonaRow & { content: string }> {
		const found = this.find(name, cwd);
		const row = await this.row(found);
		return { ...row, content: (await this.definitionLater(found))?.text ?? "" };
	}

	/** Creates a persona in the user scope from `content` (default: the template). */
	async create(name: string, content: string | undefined, cwd: string): Promise<PersonaRow> {
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
	async edit(name: string, content: string, cwd: string): Promise<PersonaRow> {
		const found = this.find(name, cwd);
		if ((await this.definitionLater(found)) === undefined) throw new CodedError("not_found", `Persona ${name} has no ${PERSONA_FILE} (it was removed): create it again with persona_create after persona_purge`);
		this.checkContent(name, content);
		writeFileAtomic(join(found.root, PERSONA_FILE), content);
		return this.row(found);
	}

	/** Deletes the definition only: its memory and sessions stay (persona_purge removes them). */
	async remove(name: string, cwd: string): Promise<void> {
		const found = this.find(name, cwd);
		if ((await this.definitionLater(found)) === undefined) throw new CodedError("not_found", `Persona ${name} has no ${PERSONA_FILE} to remove`);
		await rm(join(found.root, PERSONA_FILE), { force: true });
	}

	/** Deletes the persona's whole root: definition, memory and sessions (asynchronously: it may hold many). */
	async purge(name: string, cwd: string): Promise<void> {
		const found = this.find(name, cwd);
		await this.archived(found.root);
		try {
			await rm(found.root, { recursive: true });
		} catch (error) {
			throw new CodedError("io_error", `Persona ${name} could not be removed (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
		}
	}

	/** A persona to run: its definition and root. Undefined when no persona has the name; throws when it cannot run. */
	resolve(name: string, cwd: string): { definition: AgentDefinition; root: string } | undefined {
		if (!NAME.test(name)) return undefined;
		const found = this.locate(name, cwd);
		if (!found) return undefined;
		const state = this.stateNow(found);
		if (!state.defined && state.error === undefined) throw new CodedError("not_found", `Persona ${name} has no ${PERSONA_FILE} (it was removed): persona_create it again after persona_purge`);
		if (state.error !== undefined) throw new CodedError("invalid_command", `Persona ${name} cannot be run: ${state.error}`);
		return { definition: state.definition!, root: found.root };
	}

	/** Personas as catalog rows (for job_list's agents): synchronous, reading only the files that changed. */
	catalog(cwd: string): CatalogEntry[] {
		const listings = this.scopes(cwd).map((scope): Listing => ({ ...scope, names: namesIn(scope.folder) }));
		return visible(listings).flatMap((found): CatalogEntry[] => {
			const state = this.stateNow(found);
			if (!state.defined) return [];
			if (state.error !== undefined) return [{ name: found.name, source: "persona", file: `${found.name}/${PERSONA_FILE}`, error: state.error }];
			return [{ ...state.definition!, source: "persona" }];
		});
	}

	/** What the persona's newest runs said, once the archives still being written under `root` are there. */
	async continuity(root: string): Promise<string | undefined> {
		await this.archived(root);
		return continuityText(root, this.skipped);
	}

	/** Copies a finished run's transcript into `<root>/sessions/`, named so that names sort by time. */
	async archive(root: string, jobId: string, sessionFile: string | undefined): Promise<void> {
		if (!sessionFile || isSymbolicLink(root)) return;
		const stamp = new Date().toISOString().replace(/[:.]/g, "-");
		const copying = archiveTranscript(sessionFile, join(root, "sessions", `${stamp}_${jobId}.jsonl`), { now: this.options.stopping?.() });
		const done: Promise<void> = Promise.allSettled([this.archiving.get(root), copying]).then(() => {
			if (this.archiving.get(root) === done) this.archiving.delete(root);
		});
		this.archiving.set(root, done);
		await copying;
	}

	/** Waits until the archives being written under `root` are written (or have failed). */
	private async archived(root: string): Promise<void> {
		await this.archiving.get(root);
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

	/** A persona's row, read asynchronously: its definition, memory entries and archived sessions. */
	private async row(found: Found): Promise<PersonaRow> {
		const row: PersonaRow = { name: found.name, scope: found.scope, defined: false, memoryEntries: 0, sessionCount: 0 };
		if (isSymbolicLink(found.root)) return { ...row, error: SYMBOLIC_LINK_ERROR };
		await this.archived(found.root);
		row.sessionCount = (await archivedTranscripts(found.root, this.skipped)).length;
		try {
			row.memoryEntries = (await new LocalMemoryStore(personaStorePath(found.root)).read()).entries.length;
		} catch {
			row.error = MEMORY_ERROR;
		}
		const file = await this.definitionLater(found);
		if (file === undefined) return row;
		row.defined = true;
		if (file.error !== undefined) row.error = file.error;
		else {
			row.description = file.definition!.description;
			if (file.definition!.model) row.model = file.definition!.model;
		}
		return row;
	}

	/**
	 * Whether a persona can run, told synchronously (for the catalog and `resolve`) without reading unchanged
	 * files again: defined or not, its definition, and why it cannot run (as its row says).
	 */
	private stateNow(found: Found): { defined: boolean; definition?: AgentDefinition; error?: string } {
		if (isSymbolicLink(found.root)) return { defined: false, error: SYMBOLIC_LINK_ERROR };
		const memoryError = new LocalMemoryStore(personaStorePath(found.root)).readableNow() ? undefined : MEMORY_ERROR;
		const file = this.definitionNow(found);
		if (file === undefined) return { defined: false, error: memoryError };
		return { defined: true, definition: file.definition, error: file.error ?? memoryError };
	}

	/**
	 * persona.md, read synchronously unless unchanged since it was last read; undefined when it does not exist.
	 * Opened without following a link or waiting on a FIFO (see src/shared/regular-file.ts); read through that
	 * handle, so what is checked is what is read.
	 */
	private definitionNow(found: Found): DefinitionFile | undefined {
		const path = join(found.root, PERSONA_FILE);
		let seen;
		try {
			seen = lstatSync(path, { bigint: true }); // an unchanged file is known without even opening it
		} catch (error) {
			return this.unopened(error);
		}
		const cached = seen.isFile() ? this.known(found, path, seen) : undefined;
		if (cached) return cached;
		let fd: number;
		try {
			fd = openRegularFileSync(path, "refuse");
		} catch (error) {
			return this.unopened(error);
		}
		try {
			const stat = fstatSync(fd, { bigint: true });
			return this.known(found, path, stat) ?? this.remember(found, path, stat, readFileSync(fd, "utf8"));
		} finally {
			closeSync(fd);
		}
	}

	/** persona.md, read asynchronously unless unchanged since it was last read; undefined when it does not exist. */
	private async definitionLater(found: Found): Promise<DefinitionFile | undefined> {
		const path = join(found.root, PERSONA_FILE);
		let handle;
		try {
			handle = await openRegularFile(path, "refuse");
		} catch (error) {
			return this.unopened(error);
		}
		try {
			const stat = await handle.stat({ bigint: true });
			return this.known(found, path, stat) ?? this.remember(found, path, stat, await handle.readFile("utf8"));
		} finally {
			await handle.close();
		}
	}

	/** persona.md that could not be opened: absent (undefined), or defined but unreadable, with why. */
	private unopened(error: unknown): DefinitionFile | undefined {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
		if (error instanceof NotRegularFileError) {
			this.warnOnce(`personas: ${error.message}; the persona cannot run until it is a regular file`);
			return { text: "", error: `${PERSONA_FILE} is not a regular file (${error.found})` };
		}
		return { text: "", error: `${PERSONA_FILE} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
	}

	/** Entries of a persona's sessions skipped as not regular files, told to the operator once each. */
	private readonly skipped = (why: string) => this.warnOnce(`personas: ${why}`);

	private warnOnce(line: string): void {
		if (this.warned.has(line)) return;
		if (this.warned.size >= MAX_WARNED) this.warned.clear();
		this.warned.add(line);
		this.options.warn?.(line);
	}

	/**
	 * What the file's metadata alone tells: a file over 256 KiB is a clear error (parsed from a stand-in text);
	 * an unchanged file is what was read before. Undefined: it must be read.
	 */
	private known(found: Found, path: string, stat: BigIntStats): DefinitionFile | undefined {
		if (stat.size > MAX_PERSONA_BYTES) return this.parsed(found.name, `---\n# larger than ${MAX_PERSONA_BYTES / 1024} KiB\n---\n`);
		return this.definitions.get(path, stat);
	}

	private remember(found: Found, path: string, stat: BigIntStats, text: string): DefinitionFile {
		return this.definitions.set(path, stat, this.parsed(found.name, text));
	}

	private parsed(name: string, text: string): DefinitionFile {
		try {
			return { text, definition: this.parse(name, text) };
		} catch (error) {
			return { text, error: (error as Error).message };
		}
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

/** The personas of the listings, each name once: the first scope that has it wins. */
function visible(listings: Listing[]): Found[] {
	const seen = new Set<string>();
	const found: Found[] = [];
	for (const { scope, folder, names } of listings) {
		for (const name of [...(names ?? [])].sort()) {
			if (!NAME.test(name) || seen.has(name)) continue;
			seen.add(name);
			found.push({ name, scope, root: join(folder, name) });
		}
	}
	return found;
}

function namesIn(folder: string): string[] | undefined {
	try {
		return readdirSync(folder);
	} catch {
		return undefined;
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

