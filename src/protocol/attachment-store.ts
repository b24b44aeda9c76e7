/**
 * Images uploaded ahead of the message that carries them (POST /attachments, docs/protocol.md "Attachments"). A
 * WebSocket message is at most 4 MiB, which held about 2.8 MiB of base64 images; uploading each image first,
 * streamed to a file and bounded while it is read, lets a message carry eight images of 5 MiB by id while no
 * connection pins more memory than before. An upload is answered with its id only once the file is written and
 * flushed to the disk; a message naming the id reads the file (attached-images.ts), and once the message is
 * accepted the file is removed. Unused uploads expire (ATTACHMENT_TTL_MS) and are bounded in number and bytes
 * (everything the control-plane credential's holders upload together); every start removes what a previous
 * process left, as its ids died with it.
 */
import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { syncFolderAsync } from "../shared/atomic-write.js";
import { CodedError } from "../shared/errors.js";
import { IMAGE_TYPES, imageTypeOf } from "./image-check.js";

/** Largest image one upload may hold (the issue's 5 MiB, after the page's downsizing). */
export const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;
/** Unused uploads kept at once; one more is refused (`limit`) until one is used or expires. */
export const MAX_PENDING_ATTACHMENTS = 64;
/** Bytes of unused uploads kept at once (uploads under way count at MAX_ATTACHMENT_BYTES each). */
export const MAX_PENDING_ATTACHMENT_BYTES = 128 * 1024 * 1024;
/** How long an unused upload is kept. */
export const ATTACHMENT_TTL_MS = 60 * 60_000;
/** How often expired uploads are looked for (also at every upload). */
const SWEEP_INTERVAL_MS = 5 * 60_000;

/** An attachment id: 32 hexadecimal digits (128 random bits, so ids are never guessed). */
export const ATTACHMENT_ID_PATTERN = "^[0-9a-f]{32}$";
const ID_BYTES = 16;
/** The first bytes read to tell the type (WebP's signature ends at byte 12). */
const HEAD_BYTES = 12;

export type ImageType = (typeof IMAGE_TYPES)[number];

/** What an accepted upload is answered with. */
export interface StoredAttachment {
	id: string;
	mimeType: ImageType;
	bytes: number;
}

/** An upload refused: the HTTP status and the sentence naming what was wrong. */
export class UploadRefused extends Error {
	constructor(
		readonly status: number,
		message: string,
	) {
		super(message);
	}
}

export interface AttachmentLimits {
	maxBytes: number;
	maxPending: number;
	maxPendingBytes: number;
	ttlMs: number;
}

const DEFAULTS: AttachmentLimits = {
	maxBytes: MAX_ATTACHMENT_BYTES,
	maxPending: MAX_PENDING_ATTACHMENTS,
	maxPendingBytes: MAX_PENDING_ATTACHMENT_BYTES,
	ttlMs: ATTACHMENT_TTL_MS,
};

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(bytes % (1024 * 1024) ? 1 : 0)} MiB`;

export class AttachmentStore {
	private readonly limits: AttachmentLimits;
	/** Unused uploads (and those under way, at the most they may hold) by id. */
	private readonly kept = new Map<string, { bytes: number; at: number; mimeType?: ImageType }>();
	/** Uploads read for a message in flight (see read). */
	private readonly claimed = new Set<string>();
	private sweeper: NodeJS.Timeout | undefined;

	constructor(
		readonly dir: string,
		limits: Partial<AttachmentLimits> = {},
		private readonly now: () => number = Date.now,
	) {
		this.limits = { ...DEFAULTS, ...limits };
	}

	/** Makes the folder, removes what a previous process left, and starts looking for expired uploads. */
	async open(): Promise<void> {
		await mkdir(this.dir, { recursive: true, mode: 0o700 });
		await Promise.all((await readdir(this.dir)).map((name) => rm(join(this.dir, name), { force: true, recursive: true })));
		this.sweeper = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
		this.sweeper.unref();
	}

	/** Stops looking for expired uploads (the files stay until the next start removes them). */
	close(): void {
		clearInterval(this.sweeper);
	}

	/**
	 * Streams `body` to a new file: at most maxBytes (counted as it is read, whatever the declared length), of
	 * the declared image type by its first bytes; answered once the file is on the disk. Refuses with
	 * UploadRefused (status and reason) otherwise, and leaves no file behind.
	 */
	async save(body: Readable, declaredType: string | undefined, declaredLength?: number): Promise<StoredAttachment> {
		const type = (declaredType ?? "").split(";")[0]!.trim().toLowerCase();
		if (!IMAGE_TYPES.includes(type as ImageType)) {
			throw new UploadRefused(415, `Content-Type must be an image type: ${IMAGE_TYPES.join(", ")} (got ${type ? type.slice(0, 64) : "none"})`);
		}
		if (declaredLength !== undefined && declaredLength > this.limits.maxBytes) throw this.tooLarge(declaredLength);
		await this.sweep();
		const pendingBytes = [...this.kept.values()].reduce((sum, entry) => sum + entry.bytes, 0);
		if (this.kept.size >= this.limits.maxPending || pendingBytes + this.limits.maxBytes > this.limits.maxPendingBytes) {
			throw new UploadRefused(
				429,
				`Too many unused uploads (at most ${this.limits.maxPending}, ${megabytes(this.limits.maxPendingBytes)} in all): send them with a message, or wait for them to expire`,
			);
		}
		const id = randomBytes(ID_BYTES).toString("hex");
		this.kept.set(id, { bytes: this.limits.maxBytes, at: this.now() }); // reserved while it is read
		const partial = join(this.dir, `${id}.part`);
		try {
			const { bytes, head } = await this.write(body, partial);
			const found = imageTypeOf(head);
			if (bytes === 0) throw new UploadRefused(400, "The upload is empty: send the image's bytes as the request body");
			if (found !== type) {
				throw new UploadRefused(415, `The upload is declared ${type} but its data does not start like ${found ? `one (it starts like ${found})` : "an image"}`);
			}
			await rename(partial, join(this.dir, id));
			await syncFolderAsync(this.dir);
			this.kept.set(id, { bytes, at: this.now(), mimeType: found });
			return { id, mimeType: found, bytes };
		} catch (error) {
			this.kept.delete(id);
			await rm(partial, { force: true });
			throw error;
		}
	}

	/**
	 * Reads the named uploads, in order, as base64 image content, and claims them for one message until it is
	 * accepted (`release`) or refused (`unclaim`): an upload is in memory for one message at a time, so what
	 * commands in flight hold of uploads is bounded by what the store keeps. `not_found` names the first unknown
	 * or expired id, `conflict` one going with another message now.
	 */
	async read(ids: readonly string[]): Promise<Array<{ type: "image"; data: string; mimeType: ImageType }>> {
		await this.sweep();
		const missing = ids.find((id) => !this.kept.get(id)?.mimeType);
		if (missing !== undefined) {
			throw new CodedError(
				"not_found",
				`Attachment ${missing} is unknown or expired (unused uploads are kept ${Math.round(this.limits.ttlMs / 60_000)} min, and not across restarts): upload the image again`,
			);
		}
		const taken = ids.find((id) => this.claimed.has(id));
		if (taken !== undefined) throw new CodedError("conflict", `Attachment ${taken} is going with another message now: upload the image again to send it twice`);
		const unique = [...new Set(ids)];
		for (const id of unique) this.claimed.add(id);
		try {
			return await Promise.all(
				ids.map(async (id) => ({ type: "image" as const, data: (await readFile(join(this.dir, id))).toString("base64"), mimeType: this.kept.get(id)!.mimeType! })),
			);
		} catch (error) {
			this.unclaim(unique);
			throw error;
		}
	}

	/** Gives back uploads a refused message had claimed: another message may name them. */
	unclaim(ids: readonly string[]): void {
		for (const id of ids) this.claimed.delete(id);
	}

	/** Removes uploads that went with an accepted message (they are in its session now). */
	async release(ids: readonly string[]): Promise<void> {
		this.unclaim(ids);
		await Promise.all(ids.map((id) => this.drop(id)));
	}

	/** How many unused uploads are kept (tests, doctor). */
	get size(): number {
		return this.kept.size;
	}

	/** Writes the body to `path`, flushed; the first bytes come back to tell the type. */
	private async write(body: Readable, path: string): Promise<{ bytes: number; head: Buffer }> {
		const file = await open(path, "wx", 0o600);
		let bytes = 0;
		const heads: Buffer[] = [];
		try {
			// Past the bound the rest is read and dropped, not written (as /rpc does): the client then gets its 413
			// rather than a connection cut under it.
			for await (const chunk of body as AsyncIterable<Buffer>) {
				bytes += chunk.length;
				if (bytes > this.limits.maxBytes) continue;
				if (bytes - chunk.length < HEAD_BYTES) heads.push(chunk);
				await file.write(chunk);
			}
			if (bytes > this.limits.maxBytes) throw this.tooLarge(bytes, true);
			// A client that goes away mid-body ends the stream with an error (aborted), never here with part of it.
			if (body.readableAborted) throw new UploadRefused(400, "The upload was cut off before its end");
			await file.sync();
		} finally {
			await file.close();
		}
		return { bytes, head: Buffer.concat(heads).subarray(0, HEAD_BYTES) };
	}

	private tooLarge(bytes: number, atLeast = false): UploadRefused {
		const size = atLeast ? `more than ${megabytes(this.limits.maxBytes)}` : `${bytes} bytes`;
		return new UploadRefused(413, `The image is ${size}: an upload may be at most ${megabytes(this.limits.maxBytes)} (${this.limits.maxBytes} bytes)`);
	}

	private async drop(id: string): Promise<void> {
		if (!this.kept.delete(id)) return;
		await rm(join(this.dir, id), { force: true });
	}

	/** Removes the unused uploads older than the TTL (not those under way, nor those going with a message now). */
	private async sweep(): Promise<void> {
		const oldest = this.now() - this.limits.ttlMs;
		const expired = [...this.kept].filter(([id, entry]) => entry.mimeType && entry.at < oldest && !this.claimed.has(id)).map(([id]) => id);
		await this.release(expired);
	}
}
