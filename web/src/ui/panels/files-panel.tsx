/**
 * The session's working directory, read-only: one folder at a time (folders first; what git ignores is marked;
 * a big folder a page at a time), and a file's preview: highlighted source, rendered markdown, an image, or
 * "Binary, N bytes". Every text shown is redacted, as all text the page shows.
 */
import { useEffect } from "preact/hooks";
import { CodeBlock, Markdown } from "../../render/markdown";
import { redact } from "../../render/redact";
import { byteSize } from "../../state/byte-size";
import type { FileEntry } from "../../../../src/client/index.js";
import { dataUri } from "../../state/attachments";
import { Icon } from "../icons";
import type { PanelProps } from "./panel";
import { EmptyState, PanelLayout } from "./panel-layout";
import "../../styles/files.css";

/** Longer text is shown plain: highlighting a megabyte would hold the page. */
const HIGHLIGHT_MAX_CHARS = 100_000;

export function FilesPanel({ controller }: PanelProps) {
	const files = controller.files;
	const { ready, sessionId } = controller.state;
	useEffect(() => {
		if (ready) files.sync();
	}, [ready, sessionId]);
	const { folder, preview } = files;
	const at = preview?.path ?? folder.path;
	const parts = at ? at.split("/") : [];
	const listing = folder.listing;
	return (
		<PanelLayout
			title="Files"
			actions={
				<button type="button" class="small" onClick={() => void (preview ? files.read(preview.path) : files.open(folder.path))}>
					Refresh
				</button>
			}
		>
			<nav class="crumbs" aria-label="Path">
				<button type="button" class="link" onClick={() => void files.open("")} aria-current={at ? undefined : "location"}>
					Project
				</button>
				{parts.map((part, n) => {
					const path = parts.slice(0, n + 1).join("/");
					const last = n === parts.length - 1;
					return (
						<span key={path}>
							/
							{last && preview ? (
								<strong aria-current="page">{redact(part)}</strong>
							) : (
								<button type="button" class="link" onClick={() => void files.open(path)} aria-current={last ? "location" : undefined}>
									{redact(part)}
								</button>
							)}
						</span>
					);
				})}
			</nav>
			{preview ? (
				<FilePreview preview={preview} />
			) : folder.error ? (
				<EmptyState title="This folder cannot be listed">
					<span>{redact(folder.error)}</span>
				</EmptyState>
			) : !listing ? (
				<p class="hint">Loading…</p>
			) : folder.entries.length === 0 ? (
				<EmptyState title="This folder is empty" />
			) : (
				<>
					<ul class="file-list" aria-label={`Files in ${at || "the project"}`}>
						{folder.entries.map((entry) => (
							<Row key={entry.path} entry={entry} onOpen={() => void (isFolder(entry) ? files.open(entry.path) : files.read(entry.path))} />
						))}
					</ul>
					{listing.nextAfter !== undefined && (
						<button type="button" class="small" onClick={() => void files.more()}>
							Show more ({(listing.total - listing.offset - listing.entries.length).toLocaleString("en")} left)
						</button>
					)}
					{!listing.complete && <p class="hint">This folder holds more than {listing.total.toLocaleString("en")} entries: only those are listed.</p>}
					{listing.gitNote && <p class="hint">{redact(listing.gitNote)}</p>}
				</>
			)}
		</PanelLayout>
	);
}

const isFolder = (entry: FileEntry) => entry.kind === "directory" || entry.target === "directory";

function Row({ entry, onOpen }: { entry: FileEntry; onOpen(): void }) {
	const folder = isFolder(entry);
	// Git's own folder is listed by the service but never entered.
	const opens = entry.name !== ".git" && !entry.unnamable && (folder || entry.kind === "file" || entry.target === "file");
	const note = entry.unnamable
		? "name not readable here"
		: entry.kind === "symlink" ? `link${entry.target === "outside" ? " outside the project" : entry.target === "missing" ? ", broken" : ""}` : entry.kind === "other" ? "special file" : undefined;
	return (
		<li class={entry.ignored || entry.name === ".git" ? "ignored" : undefined}>
			<button
				type="button"
				class="file-open"
				disabled={!opens}
				title={entry.unnamable ? "Its name is not UTF-8 (shown with �) or holds a backslash: the service cannot open it by that spelling" : undefined}
				onClick={onOpen}
			>
				<Icon name={folder ? "folder" : "file"} />
				<span class="file-name">{redact(entry.name)}</span>
				{entry.ignored && <span class="file-tag">ignored</span>}
				{(note || (entry.size !== undefined && !folder)) && <span class="file-meta">{note ?? byteSize(entry.size!)}</span>}
			</button>
		</li>
	);
}

function FilePreview({ preview }: { preview: NonNullable<PanelProps["controller"]["files"]["preview"]> }) {
	const { file, error } = preview;
	if (error) {
		return (
			<EmptyState title="This file cannot be shown">
				<span>{redact(error)}</span>
			</EmptyState>
		);
	}
	if (!file) return <p class="hint">Loading…</p>;
	if (file.kind === "binary") {
		return (
			<EmptyState title={`Binary, ${file.size.toLocaleString("en")} bytes`}>
				{file.reason && <span>{redact(file.reason)}</span>}
			</EmptyState>
		);
	}
	if (file.kind === "image") {
		return (
			<figure class="file-image">
				<img src={dataUri(file)} alt={redact(file.path)} />
				<figcaption class="hint">
					{file.mimeType}, {byteSize(file.size)}
				</figcaption>
			</figure>
		);
	}
	const notes = [
		file.truncated && `Only the first ${byteSize(file.text.length)} of ${byteSize(file.size)} are shown.`,
		file.encoding === "invalid-utf-8" && "Not UTF-8 text: bytes that do not decode show as �.",
		file.redacted && "Secrets in it are masked.",
	].filter(Boolean);
	return (
		<div class="file-text">
			{notes.length > 0 && <p class="hint">{notes.join(" ")}</p>}
			{file.language === "markdown" ? (
				<Markdown text={file.text} />
			) : file.text.length > HIGHLIGHT_MAX_CHARS ? (
				<pre class="file-plain">{redact(file.text)}</pre>
			) : (
				<CodeBlock code={redact(file.text)} language={file.language} />
			)}
		</div>
	);
}
