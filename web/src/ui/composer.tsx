/**
 * The message box, pinned under the transcript. Idle: Enter or Send sends `prompt`. During a run: Enter or the
 * button sends `steer` (the button says so), and Esc or the Abort button stops the run. Shift+Enter inserts a
 * newline. What is typed is the draft of this composer's session (see drafts.ts); a note above it says when
 * the page put text back (queued messages a stopped run did not take). With `completions`, `/` at the start
 * lists the slash commands and `@` the project's files (a combobox: arrows, Enter or Tab, Esc); with `attach`,
 * images pasted, dropped or chosen are uploaded at once and go with the message (attachments.ts), shown as
 * thumbnails until it is sent: dimmed while uploading (Send waits), marked when the upload failed.
 */
import type { ComponentChildren } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { type Attachment, attachImage, dataUri, IMAGE_TYPES, MAX_IMAGES } from "../state/attachments";
import { type Choice, type Completions, type Query, queryAt } from "../state/completions";
import { useDraftBox } from "./draft-box";
import { COMPOSER_ID } from "./focus";
import { Icon } from "./icons";

export interface ComposerProps {
	draft: string;
	/** A run is in flight (and the page is connected): the button steers, Abort shows. */
	running: boolean;
	ready: boolean;
	note?: string;
	/** Why nothing is sent just now (another session being opened): said under the box instead of its keys. */
	busy?: string | false;
	placeholder?: string | false;
	/** How the hint under the box ends while idle, after the keys that send (by default it points to the shortcuts). */
	idleHint?: ComponentChildren;
	/** Completes `/` commands and `@` paths (the host's composer; a guest's has none). */
	completions?: Completions;
	/** Takes images (paste, drop, the Attach button), each uploaded by this as it comes: resolves its id. */
	attach?(image: Attachment): Promise<string>;
	/** The images this box's session holds (attached in a box of it before this one), and where its changes go. */
	images?: Attachment[];
	onImages?(images: Attachment[]): void;
	onDraft(text: string): void;
	onSend(text: string, images: Attachment[]): Promise<boolean>;
	onAbort(): void;
	onDismissNote(): void;
}

interface Menu {
	query: Query;
	choices: Choice[];
	active: number;
}

function Note(props: { text: string; label: string; onDismiss(): void }) {
	return (
		<div class="composer-note" role="note">
			<span>{props.text}</span>
			<button type="button" class="ghost icon small" aria-label={props.label} onClick={props.onDismiss}>
				<Icon name="close" />
			</button>
		</div>
	);
}

export function Composer(props: ComposerProps) {
	const { text, change, box } = useDraftBox(props.draft, props.onDraft);
	const [images, setImages] = useState<Attachment[]>(props.images ?? []);
	const [problem, setProblem] = useState<string>();
	const [menu, setMenu] = useState<Menu>();
	const asked = useRef(0);
	const caret = useRef<number | undefined>(undefined);
	const picker = useRef<HTMLInputElement>(null);

	// A new composer (another session, or text put back) keeps the focus its predecessor had.
	useLayoutEffect(() => {
		if (document.activeElement === document.body || !document.activeElement) box.current?.focus();
	}, []);
	// After a choice, the caret goes after what it inserted; the chosen option stays in view.
	useLayoutEffect(() => {
		if (caret.current !== undefined) box.current?.setSelectionRange(caret.current, caret.current);
		caret.current = undefined;
		document.getElementById(`choice-${menu?.active}`)?.scrollIntoView({ block: "nearest" });
	});

	const close = () => {
		asked.current++;
		if (menu) props.completions?.reset();
		setMenu(undefined);
	};
	const look = (value: string, at: number) => {
		const query = props.completions && queryAt(value, at);
		if (!query) return close();
		const mine = ++asked.current;
		props.completions!.choices(query).then(
			(choices) => mine === asked.current && setMenu(choices.length ? { query, choices, active: 0 } : undefined),
			() => mine === asked.current && setMenu(undefined),
		);
	};
	const accept = (choice: Choice) => {
		const { start, end } = menu!.query;
		const value = text.slice(0, start) + choice.insert + text.slice(end);
		caret.current = start + choice.insert.length;
		change(value);
		// A folder is walked into: its entries are offered next.
		if (choice.folder) look(value, caret.current);
		else close();
	};

	// The images held, as of now (not of the last render): two pastes in a row both count. Kept for the session
	// too (onImages) while this box is the one shown: a box made anew for it starts from them.
	const held = useRef<Attachment[]>(images);
	const shown = useRef(true);
	useLayoutEffect(() => () => void (shown.current = false), []);
	const hold = (list: Attachment[]) => {
		if (!shown.current) return;
		setImages((held.current = list));
		props.onImages?.(list);
	};
	/** Follows an image's upload to its end (in whichever box shows it then). */
	const follow = (image: Attachment) =>
		void image.uploaded?.then((done) => {
			if (done.failed && shown.current) setProblem(done.failed);
			hold(held.current.map((held) => (held === image ? done : held)));
		});
	useLayoutEffect(() => held.current.forEach(follow), []);
	const add = async (files: File[]) => {
		let refused: string | undefined;
		if (files.length > MAX_IMAGES - held.current.length) refused = `At most ${MAX_IMAGES} images go with one message`;
		for (const file of files.slice(0, MAX_IMAGES - held.current.length)) {
			try {
				const image = await attachImage(file);
				if (held.current.length < MAX_IMAGES) {
					image.uploaded = props.attach!(image).then(
						(id) => ({ ...image, id, uploaded: undefined }),
						(error: Error) => ({ ...image, failed: error.message, uploaded: undefined }),
					);
					hold([...held.current, image]);
					follow(image);
				}
			} catch (error) {
				refused = (error as Error).message;
			}
		}
		setProblem(refused);
	};

	const uploading = images.some((image) => !image.id && !image.failed);
	const send = async () => {
		if (!text.trim() || !props.ready || uploading) return;
		if (images.some((image) => image.failed)) return setProblem("An image could not be uploaded: remove it (marked), or attach it again");
		const sent = text;
		const sentImages = images;
		change("");
		hold([]);
		setProblem(undefined);
		close();
		if (!(await props.onSend(sent, sentImages))) {
			change(sent); // keep what failed to send
			hold(sentImages);
		}
		box.current?.focus();
	};
	const onKeyDown = (event: KeyboardEvent) => {
		if (menu) {
			const step = event.key === "ArrowDown" ? 1 : event.key === "ArrowUp" ? -1 : 0;
			if (step) {
				event.preventDefault();
				return setMenu({ ...menu, active: (menu.active + step + menu.choices.length) % menu.choices.length });
			}
			if ((event.key === "Enter" || event.key === "Tab") && !event.shiftKey) {
				event.preventDefault();
				// Choices for a word typed since (their answer is on its way) are not taken: the fresh ones come next.
				const now = queryAt(text, box.current!.selectionStart);
				return now?.start === menu.query.start && now.word === menu.query.word ? accept(menu.choices[menu.active]!) : undefined;
			}
			if (event.key === "Escape") {
				event.preventDefault();
				return close();
			}
			// The caret leaves the word the list was for.
			if (event.key === "ArrowLeft" || event.key === "ArrowRight" || event.key === "Home" || event.key === "End") close();
		}
		if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
			event.preventDefault();
			void send();
		} else if (event.key === "Escape" && props.running) {
			event.preventDefault();
			props.onAbort();
		}
	};
	const onPaste = (event: ClipboardEvent) => {
		const files = [...(event.clipboardData?.files ?? [])];
		// Text copied from an office program comes with a picture of itself too: the text is what is meant.
		if (!props.attach || files.length === 0 || event.clipboardData!.types.includes("text/plain")) return;
		event.preventDefault();
		void add(files);
	};
	const onDrop = (event: DragEvent) => {
		if (!props.attach || !event.dataTransfer?.types.includes("Files")) return;
		event.preventDefault();
		void add([...event.dataTransfer.files]);
	};
	return (
		<div class="composer-wrap">
			{props.note && <Note text={props.note} label="Dismiss note" onDismiss={props.onDismissNote} />}
			{problem && <Note text={problem} label="Dismiss" onDismiss={() => setProblem(undefined)} />}
			{menu && (
				<ul id="composer-choices" class="choices" role="listbox" aria-label={menu.query.kind === "/" ? "Commands" : "Files"}>
					{menu.choices.map((choice, n) => (
						<li
							key={choice.insert}
							id={`choice-${n}`}
							role="option"
							aria-selected={n === menu.active}
							onMouseDown={(e) => {
								e.preventDefault(); // the box keeps the focus
								accept(choice);
							}}
						>
							<span>{choice.label}</span>
							{choice.detail && <small>{choice.detail}</small>}
						</li>
					))}
				</ul>
			)}
			<form
				class="composer"
				onSubmit={(e) => {
					e.preventDefault();
					void send();
				}}
				onDragOver={(e) => props.attach && e.dataTransfer?.types.includes("Files") && e.preventDefault()}
				onDrop={onDrop}
			>
				{images.length > 0 && (
					<ul class="attachments" aria-label="Attached images">
						{images.map((image, n) => (
							<li key={image.data.slice(-32) + n} class={image.failed ? "failed" : image.id ? undefined : "busy"} title={image.failed}>
								<img src={dataUri(image)} alt={`Image ${n + 1}${image.failed ? ", not uploaded" : image.id ? "" : ", uploading"}`} />
								<button type="button" class="ghost icon small" aria-label={`Remove image ${n + 1}`} onClick={() => hold(images.filter((_, i) => i !== n))}>
									<Icon name="close" />
								</button>
							</li>
						))}
					</ul>
				)}
				<textarea
					id={COMPOSER_ID}
					ref={box}
					value={text}
					rows={1}
					placeholder={props.placeholder || (props.running ? "Steer the agent…" : "Ask the agent…")}
					onInput={(e) => {
						const el = e.target as HTMLTextAreaElement;
						change(el.value);
						look(el.value, el.selectionStart);
					}}
					onKeyDown={onKeyDown}
					onPaste={onPaste}
					onBlur={close}
					aria-label="Message"
					aria-keyshortcuts="Enter"
					{...(props.completions && {
						role: "combobox",
						"aria-autocomplete": "list",
						"aria-expanded": menu !== undefined,
						"aria-controls": "composer-choices",
						"aria-activedescendant": menu ? `choice-${menu.active}` : undefined,
					} as object)}
				/>
				<div class="composer-actions">
					{props.attach && (
						<button type="button" class="ghost icon" aria-label="Attach images" title="Attach images" onClick={() => picker.current?.click()}>
							<Icon name="plus" />
						</button>
					)}
					{props.attach && (
						<input
								ref={picker}
								type="file"
								hidden
								accept={IMAGE_TYPES.join(",")}
								multiple
								onChange={(e) => {
									const input = e.target as HTMLInputElement;
									void add([...(input.files ?? [])]);
									input.value = "";
								}}
							/>
					)}
					{props.running && (
						<button type="button" class="abort" onClick={props.onAbort}>
							<Icon name="stop" />
							<span class="label">Abort</span>
						</button>
					)}
					<button type="submit" class="primary send" disabled={!props.ready || !text.trim() || uploading}>
						<span class="label">{props.running ? "Steer" : "Send"}</span>
						<Icon name="send" />
					</button>
				</div>
			</form>
			<p class={props.busy ? "composer-hint busy" : "composer-hint"}>
				{props.busy || (props.running ? (
					<>
						<kbd>Enter</kbd> steers the run · <kbd>Esc</kbd> stops it
					</>
				) : (
					<>
						<kbd>Enter</kbd> sends · <kbd>Shift</kbd>+<kbd>Enter</kbd> new line · {props.idleHint ?? (
							<>
								<kbd>?</kbd> shortcuts
							</>
						)}
					</>
				))}
			</p>
		</div>
	);
}
