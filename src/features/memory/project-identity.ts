/**
 * Which project a working directory belongs to: the canonical repository root (the nearest ancestor with a
 * `.git` file or directory), or the canonical directory itself outside a repository. Its digest names the
 * local memory namespace and, shortened, the remote project label.
 */
import { createHash } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";

export function projectAnchor(cwd: string): string {
	let canonical: string;
	try {
		canonical = realpathSync.native(cwd);
	} catch {
		canonical = cwd;
	}
	for (let dir = canonical; ; dir = dirname(dir)) {
		if (existsSync(join(dir, ".git"))) return dir;
		if (dirname(dir) === dir) return canonical;
	}
}

/** 32 lowercase hex characters: the first 16 bytes of SHA-256 over the anchor path. */
export function projectDigest(anchor: string): string {
	return createHash("sha256").update(Buffer.from(anchor)).digest("hex").slice(0, 32);
}

/** `<sanitized-basename>-<digest prefix>`: readable, and distinct for same-named repositories. */
export function projectLabel(anchor: string): string {
	const name =
		basename(anchor)
			.replace(/[^A-Za-z0-9_.-]/g, "-")
			.split("-")
			.filter(Boolean)
			.join("-") || "unknown";
	return `${name}-${projectDigest(anchor).slice(0, 12)}`;
}
