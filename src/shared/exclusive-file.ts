/**
 * Creating a file that must not exist yet and must never be seen half-written (lock files: a reader that
 * found one empty or torn could not tell who holds it). The content goes to a temporary file first, which is
 * then hard-linked to the name: link() fails when the name exists, and the name appears with all its content.
 */
import { randomBytes } from "node:crypto";
import { closeSync, linkSync, openSync, rmSync, writeSync } from "node:fs";
import { PRIVATE_FILE_MODE } from "./atomic-write.js";

/**
 * Creates `path` holding `content`; false, and nothing written, when `path` already exists. Other failures
 * (ENOSPC, EACCES, EROFS) throw the system's error and leave no temporary file behind.
 */
export function createWholeExclusively(path: string, content: string): boolean {
	const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`;
	try {
		const fd = openSync(temp, "wx", PRIVATE_FILE_MODE);
		try {
			const bytes = Buffer.from(content, "utf8");
			for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset);
		} finally {
			closeSync(fd);
		}
		linkSync(temp, path);
		return true;
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
		return false;
	} finally {
		rmSync(temp, { force: true });
	}
}
