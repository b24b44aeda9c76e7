/**
 * Which projects are trusted: `<agent-dir>/trust.json`, `{"projects": {"<folder>": {"trusted": bool,
 * "decidedAt": ISO time}}}`. A project's `.skiff/settings.json` counts only while its folder is trusted, and
 * only `project_trust` decides that: opening a session in a folder never does.
 */
import { realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { isRecord, type JsonRecord, readSettingsFile, withValue, writeSettingsFile } from "./settings-file.js";

/** A project's folder as trust.json and the settings files name it: absolute, symbolic links resolved. */
export function projectFolder(cwd: string): string {
	try {
		return realpathSync(cwd);
	} catch {
		return resolve(cwd);
	}
}

/** The project settings file of a project folder. */
export function projectSettingsPath(folder: string): string {
	return join(folder, ".skiff", "settings.json");
}

export class TrustStore {
	readonly path: string;

	constructor(agentDir: string) {
		this.path = join(agentDir, "trust.json");
	}

	/** Whether the folder is trusted. A trust.json that cannot be read trusts nothing. */
	isTrusted(folder: string): boolean {
		try {
			return this.decision(readSettingsFile(this.path).data, folder) === true;
		} catch {
			return false;
		}
	}

	/** Records the decision (other projects and unknown keys kept). Throws `io_error` when trust.json cannot be read. */
	setTrusted(folder: string, trusted: boolean, now = new Date()): void {
		const file = readSettingsFile(this.path);
		const projects = isRecord(file.data.projects) ? file.data.projects : {};
		const entry = { ...(isRecord(projects[folder]) ? (projects[folder] as JsonRecord) : {}), trusted, decidedAt: now.toISOString() };
		const data = withValue(file.data, "projects", { ...projects, [folder]: entry });
		writeSettingsFile(this.path, data, file.hash);
	}

	private decision(data: JsonRecord, folder: string): boolean | undefined {
		const projects = data.projects;
		if (!isRecord(projects) || !Object.hasOwn(projects, folder)) return undefined;
		const entry = projects[folder];
		return isRecord(entry) && typeof entry.trusted === "boolean" ? entry.trusted : undefined;
	}
}
