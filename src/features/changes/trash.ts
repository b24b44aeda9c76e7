/**
 * Where a revert puts files the base does not have (a new file, an untracked one): moved into a trash folder
 * under the agent directory, never deleted, so a revert can itself be undone by hand. Each revert gets a
 * folder of its own (time and a random part), keeping the file's path inside it.
 */
import { randomBytes } from "node:crypto";
import { cp, mkdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";

/** The trash's folder under the agent directory. */
export const TRASH_FOLDER = "changes-trash";

export class Trash {
	private folder: string | undefined;

	constructor(private readonly agentDir: string) {}

	/** Moves `absolute` (the entry itself, a link stays a link) to the trash under `rel`; answers where it went. */
	async put(absolute: string, rel: string): Promise<string> {
		this.folder ??= join(this.agentDir, TRASH_FOLDER, `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(3).toString("hex")}`);
		const target = join(this.folder, rel);
		await mkdir(dirname(target), { recursive: true, mode: 0o700 });
		try {
			await rename(absolute, target);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
			// Another file system: copy, then remove the original only once the copy is whole.
			await cp(absolute, target, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true, errorOnExist: true, force: false });
			await rm(absolute, { recursive: true });
		}
		return target;
	}
}
