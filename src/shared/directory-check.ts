/**
 * Why a path cannot be a session's working directory, in words, or undefined when it can: it must exist, be a
 * directory (a symbolic link to one counts) and be listable. Asynchronous, so a request that names a slow or
 * remote folder never holds the event loop. The file-system calls can be replaced, so a test can meet a folder it
 * cannot read even when it runs as root.
 */
import { opendir, stat } from "node:fs/promises";
import { kindOf } from "./regular-file.js";

export interface DirectoryProbe {
	stat: typeof stat;
	opendir: typeof opendir;
}

const DISK: DirectoryProbe = { stat, opendir };

export async function directoryProblem(path: string, probe: DirectoryProbe = DISK): Promise<string | undefined> {
	try {
		const stats = await probe.stat(path);
		if (!stats.isDirectory()) return `is ${kindOf(stats)}, not a directory`;
		await (await probe.opendir(path)).close();
		return undefined;
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT") return "does not exist";
		if (code === "ENOTDIR") return "does not exist (a part of it is a file)";
		if (code === "EACCES" || code === "EPERM") return "is not readable (permission denied)";
		return `cannot be read (${code ?? "unknown error"})`;
	}
}
