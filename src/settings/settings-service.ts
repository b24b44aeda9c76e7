/**
 * Skiff's settings: the global file `<agent-dir>/settings.json` and, for a trusted project, its
 * `<project>/.skiff/settings.json` over it. Reads the effective values a session takes, shows them with their
 * sources, edits the files through drafts (validated key by key and as a whole, applied atomically, refused
 * when the file changed meanwhile) and makes applied changes take effect through the consumers. Secrets are
 * never shown or written here, only `$VAR` references to them.
 */
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import type { LoadedSession, RuntimeManager } from "../agent/runtime-manager.js";
import type { SessionSettings } from "../agent/types.js";
import { CodedError } from "../shared/errors.js";
import { REDACTED } from "../shared/redact.js";
import type { SettingsCatalog } from "./catalog.js";
import type { SessionChange, SettingsChange, SettingsConsumer, SettingValues } from "./consumer.js";
import { holdsMask, isSecret, schemaOf, type SettingDefinition, type SettingScope, shownValue } from "./definition.js";
import { type Draft, DraftStore } from "./drafts.js";
import { type ResolvedSettings, resolveSettings, type SettingProblem, type SettingsLayer, valuesOf } from "./effective-settings.js";
import type { ApplyResult, DraftView, Inspection, SettingView, TrustResult } from "./schemas.js";
import { sessionSettingsFrom } from "./session-settings.js";
import { ENV_REFERENCE, requirement, type SettingSchema } from "./setting-schema.js";
import { blockedParent, type FileSnapshot, type JsonRecord, readSettingsFile, valueAt, withValue, writeSettingsFile } from "./settings-file.js";
import { projectFolder, projectSettingsPath, TrustStore } from "./trust.js";

/** Most problems named in one error message (settings_validate lists them all). */
const MAX_PROBLEMS_IN_ERROR = 3;

export interface SettingsServiceOptions {
	agentDir: string;
	catalog: SettingsCatalog;
	/** Where warnings go (a project file that cannot be read); never secrets. */
	log?: (line: string) => void;
	now?: () => number;
}

/** The effective settings for one working directory, and what could not be read. */
export interface Effective extends ResolvedSettings {
	readonly folder: string;
	readonly projectPath: string;
	readonly trusted: boolean;
	readonly globalError?: string;
	readonly projectError?: string;
}

export class SettingsService {
	readonly globalPath: string;
	readonly trust: TrustStore;
	private readonly drafts: DraftStore;
	private readonly consumers: SettingsConsumer[] = [];
	/** Warnings already given, so a broken project file is reported once, not at every session. */
	private readonly warned = new Set<string>();

	constructor(private readonly options: SettingsServiceOptions) {
		this.globalPath = join(options.agentDir, "settings.json");
		this.trust = new TrustStore(options.agentDir);
		this.drafts = new DraftStore(options.now);
	}

	get catalog(): SettingsCatalog {
		return this.options.catalog;
	}

	/** Adds what runs on settings (sessions, memory, ...); the composition root lists them. */
	addConsumer(consumer: SettingsConsumer): void {
		this.consumers.push(consumer);
	}

	/**
	 * Start-up check: the global file must parse and every value in it fit its key. Throws an error naming the
	 * file and position, or the keys and what they allow.
	 */
	checkGlobal(): void {
		const file = readSettingsFile(this.globalPath);
		const { problems } = resolveSettings(this.catalog, file);
		if (problems.length > 0) throw new Error(problems.map((p) => p.message).join("; "));
	}

	/** The effective settings for sessions in `cwd` (undefined: outside any project, the global file alone). */
	effective(cwd?: string): Effective {
		const folder = cwd === undefined ? "" : projectFolder(cwd);
		const projectPath = cwd === undefined ? "" : projectSettingsPath(folder);
		const trusted = cwd !== undefined && this.trust.isTrusted(folder);
		const global = this.tryRead(this.globalPath);
		const project = trusted ? this.tryRead(projectPath) : undefined;
		const resolved = resolveSettings(this.catalog, global.file ?? { path: this.globalPath, data: {} }, project?.file);
		return { ...resolved, folder, projectPath, trusted, globalError: global.error, projectError: project?.error };
	}

	/** What a session opening in `cwd` takes (see SessionSettings); problems are reported once and skipped. */
	sessionSettings(cwd: string): SessionSettings {
		const effective = this.effective(cwd);
		for (const problem of [effective.globalError, effective.projectError, ...effective.problems.map((p) => p.message)]) {
			if (problem !== undefined) this.warnOnce(`settings: ${problem}`);
		}
		return sessionSettingsFrom(valuesOf(effective));
	}

	/** Every key with its effective value for the session, where it comes from, and what each file holds. */
	inspect(session: LoadedSession): Inspection {
		const cwd = session.handle.cwd;
		const effective = this.effective(cwd);
		const runtime = this.runtimeValues(session);
		const values: SettingView[] = [];
		for (const [key, resolved] of effective.values) {
			const definition = resolved.definition;
			const switched = Object.hasOwn(runtime, key) && !isDeepStrictEqual(runtime[key], resolved.value);
			const view: SettingView = {
				...describe(definition),
				source: switched ? "runtime" : resolved.source,
				editableGlobal: effective.globalError === undefined,
				editableProject: definition.scopes.includes("project") && effective.trusted && effective.projectError === undefined,
			};
			setShown(view, "effectiveValue", definition, switched ? runtime[key] : resolved.value);
			setShown(view, "globalValue", definition, resolved.globalValue);
			if (effective.trusted) setShown(view, "projectValue", definition, resolved.projectValue);
			values.push(view);
		}
		return {
			cwd,
			globalPath: this.globalPath,
			projectFolder: effective.folder,
			projectPath: effective.projectPath,
			projectTrusted: effective.trusted,
			...(effective.globalError === undefined ? {} : { globalError: effective.globalError }),
			...(effective.projectError === undefined ? {} : { projectError: effective.projectError }),
			problems: effective.problems.map((p) => ({ ...p })),
			values,
		};
	}

	/** Opens a draft of the global file, or of the project file of `cwd` (which must be trusted). */
	openDraft(scope: SettingScope, cwd: string): DraftView {
		if (scope === "global") return this.view(this.drafts.open("global", readSettingsFile(this.globalPath)));
		const folder = projectFolder(cwd);
		this.requireTrusted(folder);
		return this.view(this.drafts.open("project", readSettingsFile(projectSettingsPath(folder)), folder));
	}

	/** Sets a key in a draft after checking it fits (a secret only as a `$VAR` reference). */
	set(draftId: string, key: string, value: unknown): DraftView {
		const draft = this.drafts.get(draftId);
		const definition = this.definition(key);
		if (draft.scope === "project" && !definition.scopes.includes("project")) {
			throw new CodedError("invalid_command", `\`${key}\` can only be set in the global settings, not in a project's`);
		}
		if (isSecret(definition) && !(typeof value === "string" && ENV_REFERENCE.test(value))) {
			throw new CodedError(
				"invalid_command",
				`\`${key}\` is a secret: settings commands never take the secret itself; set a reference to an environment ` +
					"variable that holds it instead, such as \"$MY_TOKEN\" (exported before skiff starts)",
			);
		}
		if (holdsMask(definition, value)) {
			throw new CodedError(
				"invalid_command",
				`\`${key}\` holds ${REDACTED}, the mask views show for a secret: written back it would replace the secret; write ` +
					"the secret as a reference to an environment variable (\"$MY_TOKEN\") instead, or edit the file by hand",
			);
		}
		const problem = this.catalog.problem(definition, value);
		if (problem) throw new CodedError("invalid_command", problem);
		const blocked = blockedParent(draft.base.data, key);
		if (blocked !== undefined) {
			throw new CodedError("conflict", `\`${blocked}\` in ${draft.base.path} is not an object, so \`${key}\` cannot be set in it; fix the file by hand`);
		}
		draft.changes.set(key, structuredClone(value));
		return this.view(draft);
	}

	/** Removes a key from the file when the draft is applied (its value then comes from below: global or default). */
	reset(draftId: string, key: string): DraftView {
		const draft = this.drafts.get(draftId);
		this.definition(key);
		draft.changes.set(key, undefined);
		return this.view(draft);
	}

	/** The draft with every problem that would stop it being applied. */
	validate(draftId: string): DraftView {
		return this.view(this.drafts.get(draftId));
	}

	cancel(draftId: string): void {
		this.drafts.get(draftId);
		this.drafts.delete(draftId);
	}

	/**
	 * Writes the draft's file (unless nothing changed) and makes the change take effect: live keys in the loaded
	 * sessions it reaches, the others in new sessions or after a restart, as the result says. Refused, with
	 * nothing written, when the draft has problems, the project is no longer trusted, or the file changed since
	 * the draft was opened.
	 */
	async apply(draftId: string, runtime: RuntimeManager): Promise<ApplyResult> {
		const draft = this.drafts.get(draftId);
		if (draft.folder !== undefined) this.requireTrusted(draft.folder);
		const problems = this.problems(draft);
		if (problems.length > 0) {
			const listed = problems.slice(0, MAX_PROBLEMS_IN_ERROR).map((p) => p.message);
			const more = problems.length > listed.length ? `; and ${problems.length - listed.length} more (see settings_validate)` : "";
			throw new CodedError("invalid_command", `The draft cannot be applied, nothing was written: ${listed.join("; ")}${more}`);
		}
		const data = this.result(draft);
		const path = draft.base.path;
		if (isDeepStrictEqual(data, draft.base.data)) {
			this.drafts.delete(draftId);
			return { scope: draft.scope, path, keys: [], appliedLive: [], newSessions: [], restartRequired: [] };
		}
		const outcome = await this.changing(runtime, draft.folder, () => {
			try {
				writeSettingsFile(path, data, draft.base.hash);
			} catch (error) {
				if (!(error instanceof CodedError) || error.code !== "conflict") throw error;
				throw new CodedError(
					"conflict",
					`${path} changed since draft ${draft.id} was opened (by hand or by another client): nothing was written; open a new draft and make the change again`,
				);
			}
		});
		this.drafts.delete(draftId);
		return { scope: draft.scope, path, ...outcome };
	}

	/** Trusts a project (its settings file then counts) or stops trusting it, and applies what that changes. */
	async setTrust(cwd: string, trusted: boolean, runtime: RuntimeManager): Promise<TrustResult> {
		const folder = projectFolder(cwd);
		const outcome = await this.changing(runtime, folder, () => this.trust.setTrusted(folder, trusted, new Date(this.now())));
		return { projectFolder: folder, projectPath: projectSettingsPath(folder), trusted, ...outcome };
	}

	/**
	 * Runs `write` (which changes the files or the trust) between two readings of the effective settings, then
	 * lets the consumers apply what changed for the loaded sessions it reaches: all of them, or those of
	 * `folder`. Returns the changed keys by when they take effect.
	 */
	private async changing(runtime: RuntimeManager, folder: string | undefined, write: () => void) {
		const reached = runtime.loadedSessions().filter((s) => folder === undefined || projectFolder(s.handle.cwd) === folder);
		// The values where the change is made: outside any project for the global file, else in the project.
		const where = () => valuesOf(this.effective(folder));
		const globalBefore = valuesOf(this.effective());
		const changedBefore = where();
		const before = reached.map((session) => valuesOf(this.effective(session.handle.cwd)));
		write();
		const globalAfter = valuesOf(this.effective());
		const changedAfter = where();
		const sessions: SessionChange[] = reached.map((session, i) => ({ session, before: before[i]!, after: valuesOf(this.effective(session.handle.cwd)) }));
		const keys = this.catalog
			.list()
			.map((d) => d.key)
			.filter((key) => !isDeepStrictEqual(changedBefore.get(key), changedAfter.get(key)));
		const change: SettingsChange = { keys, global: { before: globalBefore, after: globalAfter }, sessions };
		for (const consumer of this.consumers) {
			try {
				await consumer.apply?.(change);
			} catch (error) {
				this.options.log?.(`settings: applying ${keys.join(", ")} failed: ${(error as Error).message}`);
			}
		}
		const when = (applies: SettingDefinition["applies"]) => keys.filter((key) => this.catalog.get(key)!.applies === applies);
		return { keys, appliedLive: when("live"), newSessions: when("newSessions"), restartRequired: when("restart") };
	}

	/** The file's content once the draft's changes are made. */
	private result(draft: Draft): JsonRecord {
		let data = draft.base.data;
		for (const [key, value] of draft.changes) data = withValue(data, key, value);
		return data;
	}

	/** What stops the draft being applied: values that do not fit (in the whole resulting file), and the consumers' checks. */
	private problems(draft: Draft): SettingProblem[] {
		const file: SettingsLayer = { path: draft.base.path, data: this.result(draft) };
		let resolved: ResolvedSettings;
		if (draft.scope === "global") {
			resolved = resolveSettings(this.catalog, file);
		} else {
			const global = this.tryRead(this.globalPath);
			resolved = resolveSettings(this.catalog, global.file ?? { path: this.globalPath, data: {} }, file);
		}
		const values = valuesOf(resolved);
		return [...resolved.problems, ...this.consumers.flatMap((c) => c.validate?.(values) ?? [])];
	}

	private view(draft: Draft): DraftView {
		const data = this.result(draft);
		const values: Record<string, unknown> = {};
		const changed: string[] = [];
		for (const definition of this.catalog.list()) {
			const value = valueAt(data, definition.key);
			if (value !== undefined) values[definition.key] = shownValue(definition, value);
			if (!isDeepStrictEqual(value, valueAt(draft.base.data, definition.key))) changed.push(definition.key);
		}
		return { draftId: draft.id, scope: draft.scope, path: draft.base.path, values, changed, problems: this.problems(draft) };
	}

	private runtimeValues(session: LoadedSession): Record<string, unknown> {
		return Object.assign({}, ...this.consumers.map((c) => c.runtimeValues?.(session) ?? {}));
	}

	private definition(key: string): SettingDefinition {
		const definition = this.catalog.get(key);
		if (!definition) throw new CodedError("invalid_command", `Unknown setting \`${key}\`: settings_inspect lists every key`);
		return definition;
	}

	private requireTrusted(folder: string): void {
		if (this.trust.isTrusted(folder)) return;
		throw new CodedError(
			"forbidden",
			`The project ${folder} is not trusted: its ${projectSettingsPath(folder)} is ignored and cannot be edited; ` +
				"trust it first with project_trust {\"trusted\": true}",
		);
	}

	private tryRead(path: string): { file?: FileSnapshot; error?: string } {
		try {
			return { file: readSettingsFile(path) };
		} catch (error) {
			return { error: (error as Error).message };
		}
	}

	private warnOnce(line: string): void {
		if (this.warned.has(line)) return;
		this.warned.add(line);
		this.options.log?.(line);
	}

	private now(): number {
		return (this.options.now ?? Date.now)();
	}
}

/** The definition part of a key's view: what it is, what it accepts, where and when it applies. */
function describe(definition: SettingDefinition): Omit<SettingView, "source" | "editableGlobal" | "editableProject"> {
	const schema = schemaOf(definition);
	const list = schema.type === "array";
	const allowed = schema.enum ?? schema.items?.enum;
	const view: Omit<SettingView, "source" | "editableGlobal" | "editableProject"> = {
		key: definition.key,
		category: definition.category,
		description: schema.description ?? "",
		type: list ? "list" : schema.enum ? "enum" : ((schema.type ?? "string") as SettingView["type"]),
		allowed: requirementText(schema),
		scopes: [...definition.scopes],
		applies: definition.applies,
		secret: isSecret(definition),
	};
	if (allowed) view.enum = [...allowed];
	if (schema.minimum !== undefined) view.minimum = schema.minimum;
	if (schema.maximum !== undefined) view.maximum = schema.maximum;
	if (schema.default !== undefined) view.default = structuredClone(schema.default);
	return view;
}

/** What a key accepts, in words, without the leading "be". */
function requirementText(schema: SettingSchema): string {
	return requirement(schema).replace(/^be /, "");
}

/** Sets a value field of a view, a secret's as the redaction marker; an unset value leaves the field out. */
function setShown(view: SettingView, field: "effectiveValue" | "globalValue" | "projectValue", definition: SettingDefinition, value: unknown): void {
	if (value === undefined) return;
	view[field] = shownValue(definition, value);
}
