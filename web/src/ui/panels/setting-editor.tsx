/**
 * One catalog key in the settings panel: its name, what it does, a typed editor (a switch, a choice, a number
 * with its range, text, a list), where its value comes from and when a change takes effect. Numbers are checked
 * as they are typed; every value is then checked by the service (settings_set), whose objection shows under the
 * field. Secrets show only whether they are set: the field takes a `$VAR` reference and is emptied once sent.
 */
import { useState } from "preact/hooks";
import type { SettingScope, SettingView } from "../../../../src/client/index.js";
import { REDACTED, redact } from "../../render/redact";
import { readObject } from "../../state/setting-json";
import type { ScopedValue } from "../../state/settings-state";
import { settingLabel } from "./setting-label";

const APPLIES: Record<SettingView["applies"], string> = { live: "applies at once", newSessions: "applies to new sessions", restart: "applies after a restart" };
const SOURCES: Record<SettingView["source"], string> = { default: "default", global: "global file", project: "project file", runtime: "this session" };

export interface SettingEditorProps {
	view: SettingView;
	scope: SettingScope;
	shown: ScopedValue;
	error: string | undefined;
	disabled: boolean;
	/** Why the key cannot be edited in this scope, when it cannot. */
	lockedReason: string | undefined;
	/** Suggestions for a text key (e.g. the providers and models with credentials). */
	suggestions?: string[];
	onSet(value: unknown): void;
	onReset(): void;
}

/** A value as the panel writes it: unset, on/off, lists with commas, numbers with separators. */
export function formatValue(value: unknown): string {
	if (value === undefined || value === null) return "unset";
	if (typeof value === "boolean") return value ? "on" : "off";
	if (typeof value === "number") return value.toLocaleString("en-US");
	if (Array.isArray(value)) return value.length ? value.map(String).join(", ") : "none";
	// An object (mcpServers) by its keys: its whole JSON is in the editor, and would flood a one-line summary.
	if (typeof value === "object") return `{${Object.keys(value).join(", ")}}`;
	return typeof value === "string" ? value : JSON.stringify(value);
}

export function SettingEditor(props: SettingEditorProps) {
	const { view, shown, error } = props;
	const id = `setting-${view.key.replace(/[^A-Za-z0-9]/g, "-")}`;
	const described = [`${id}-about`, error ? `${id}-error` : ""].filter(Boolean).join(" ");
	const disabled = props.disabled || props.lockedReason !== undefined;
	const inline = view.type === "boolean";
	const editor = <Editor {...props} id={id} described={described} disabled={disabled} />;
	return (
		<div class={`setting${shown.pending ? " pending" : ""}${error ? " invalid" : ""}`} data-key={view.key}>
			<div class="setting-head">
				<label class="setting-key" for={id}>
					{settingLabel(view.key)} <code>{view.key}</code>
				</label>
				{inline && editor}
			</div>
			<p class="setting-about" id={`${id}-about`}>
				{view.description}
			</p>
			{!inline && editor}
			{error && (
				<p class="error-text" id={`${id}-error`} role="alert">
					{redact(error)}
				</p>
			)}
			<p class="setting-meta">
				{shown.pending && <span class="tag pending-tag">changed</span>}
				<span>{APPLIES[view.applies]}</span>
				<span>
					now: {view.secret ? (view.effectiveValue === undefined ? "unset" : REDACTED) : formatValue(view.effectiveValue)} ({SOURCES[view.source]})
				</span>
				{!view.secret && view.default !== undefined && view.source !== "default" && <span>default: {formatValue(view.default)}</span>}
				{props.lockedReason && <span>{props.lockedReason}</span>}
				{shown.set && !disabled && (
					<button type="button" class="link" onClick={props.onReset} aria-label={`Reset ${view.key}`}>
						Reset
					</button>
				)}
			</p>
		</div>
	);
}

function Editor(props: SettingEditorProps & { id: string; described: string }) {
	const { view, shown, id, described, disabled, error } = props;
	const invalid = error ? "true" : undefined;
	if (view.secret) return <SecretEditor {...props} />;
	switch (view.type) {
		case "boolean":
			return (
				<input
					id={id}
					class="switch"
					type="checkbox"
					role="switch"
					checked={shown.value === true}
					disabled={disabled}
					aria-describedby={described}
					onChange={(e) => props.onSet((e.target as HTMLInputElement).checked)}
				/>
			);
		case "enum":
			return (
				<select id={id} value={String(shown.value ?? "")} disabled={disabled} aria-describedby={described} aria-invalid={invalid} onChange={(e) => props.onSet((e.target as HTMLSelectElement).value)}>
					{shown.value === undefined && <option value="">unset</option>}
					{(view.enum ?? []).map((option) => (
						<option key={option} value={option}>
							{option}
						</option>
					))}
				</select>
			);
		case "integer":
			return <NumberEditor {...props} />;
		case "object":
			return <JsonEditor {...props} />;
		case "list":
			return view.enum ? (
				<fieldset class="setting-choices" id={id} aria-describedby={described} disabled={disabled}>
					<legend class="sr-only">{settingLabel(view.key)}</legend>
					{view.enum.map((option) => {
						const list = Array.isArray(shown.value) ? (shown.value as unknown[]) : [];
						return (
							<label key={option} class="check">
								<input
									type="checkbox"
									checked={list.includes(option)}
									onChange={(e) => {
										const checked = (e.target as HTMLInputElement).checked;
										props.onSet(checked ? [...list, option] : list.filter((item) => item !== option));
									}}
								/>
								<span>{option}</span>
							</label>
						);
					})}
				</fieldset>
			) : (
				<TextEditor {...props} list />
			);
		default:
			return <TextEditor {...props} list={false} />;
	}
}

/** Reads the value typed into a number field: an integer within the key's range, or why not. */
export function readInteger(text: string, view: Pick<SettingView, "key" | "minimum" | "maximum">): { value: number } | { problem: string } {
	const range =
		view.minimum !== undefined && view.maximum !== undefined
			? `from ${view.minimum.toLocaleString("en-US")} to ${view.maximum.toLocaleString("en-US")}`
			: view.minimum !== undefined
				? `of at least ${view.minimum.toLocaleString("en-US")}`
				: view.maximum !== undefined
					? `of at most ${view.maximum.toLocaleString("en-US")}`
					: "";
	const wanted = `\`${view.key}\` must be a whole number${range ? ` ${range}` : ""}`;
	const trimmed = text.trim().replace(/[,_\s]/g, "");
	if (!/^-?\d+$/.test(trimmed)) return { problem: `${wanted}.` };
	const value = Number(trimmed);
	if ((view.minimum !== undefined && value < view.minimum) || (view.maximum !== undefined && value > view.maximum)) return { problem: `${wanted} (got ${value.toLocaleString("en-US")}).` };
	return { value };
}

function NumberEditor(props: SettingEditorProps & { id: string; described: string }) {
	const { view, shown, id, described, disabled } = props;
	const initial = shown.set && typeof shown.value === "number" ? String(shown.value) : "";
	const { text, problem, commit, onInput } = useCheckedText(props, initial, (value) => readInteger(value, view), (value) => value !== shown.value && props.onSet(value));
	return (
		<>
			<div class="setting-number">
				<input
					id={id}
					type="text"
					inputMode="numeric"
					value={text}
					disabled={disabled}
					placeholder={shown.set ? undefined : formatValue(shown.value)}
					aria-describedby={`${described}${problem ? ` ${id}-range` : ""}`}
					aria-invalid={problem || props.error ? "true" : undefined}
					onInput={onInput}
					{...sendOnEnterOrLeave(commit)}
				/>
				<span class="hint">{view.minimum !== undefined && view.maximum !== undefined ? `${view.minimum.toLocaleString("en-US")}–${view.maximum.toLocaleString("en-US")}` : view.allowed}</span>
			</div>
			{problem && !props.error && (
				<p class="error-text" id={`${id}-range`}>
					{problem}
				</p>
			)}
		</>
	);
}

function TextEditor(props: SettingEditorProps & { id: string; described: string; list: boolean }) {
	const { view, shown, id, described, disabled } = props;
	const initial = !shown.set || shown.value === undefined ? "" : props.list && Array.isArray(shown.value) ? shown.value.join(", ") : String(shown.value);
	const [text, setText] = useState(initial);
	const listId = props.suggestions?.length ? `${id}-suggestions` : undefined;
	const commit = () => {
		if (text === initial) return;
		if (!text.trim()) return shown.set ? props.onReset() : setText(initial);
		props.onSet(
			props.list
				? text
						.split(",")
						.map((item) => item.trim())
						.filter(Boolean)
				: text,
		);
	};
	return (
		<>
			<input
				id={id}
				type="text"
				value={text}
				disabled={disabled}
				list={listId}
				autoComplete="off"
				spellcheck={false}
				placeholder={shown.set ? undefined : formatValue(shown.value)}
				aria-describedby={described}
				aria-invalid={props.error ? "true" : undefined}
				onInput={(e) => setText((e.target as HTMLInputElement).value)}
				{...sendOnEnterOrLeave(commit)}
			/>
			{listId && (
				<datalist id={listId}>
					{props.suggestions!.map((s) => (
						<option key={s} value={s} />
					))}
				</datalist>
			)}
		</>
	);
}

/** An object as JSON: checked as it is typed (the problem under the field), sent when left or on Ctrl+Enter. */
function JsonEditor(props: SettingEditorProps & { id: string; described: string }) {
	const { view, shown, id, described, disabled } = props;
	const initial = shown.set && shown.value !== undefined ? JSON.stringify(shown.value, null, 2) : "";
	const { text, problem, commit, onInput } = useCheckedText(props, initial, (value) => readObject(value, view.key), props.onSet);
	return (
		<>
			<textarea
				id={id}
				class="setting-json"
				value={text}
				rows={Math.min(16, Math.max(4, text.split("\n").length))}
				disabled={disabled}
				spellcheck={false}
				placeholder={shown.set ? undefined : formatValue(shown.value)}
				aria-describedby={`${described}${problem ? ` ${id}-json` : ""}`}
				aria-invalid={problem || props.error ? "true" : undefined}
				onInput={onInput}
				onKeyDown={(e) => {
					if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
						e.preventDefault();
						commit();
					}
				}}
				onBlur={commit}
			/>
			<p class="setting-about">Sent when you leave the field or press Ctrl+Enter. A masked secret needs a $VAR reference in its place.</p>
			{problem && !props.error && (
				<p class="error-text" id={`${id}-json`}>
					{problem}
				</p>
			)}
		</>
	);
}

/**
 * A field checked as it is typed (`read` says the problem, shown under it) and sent once left: unchanged, it
 * sends nothing; emptied, it resets the key (when the file sets it); else what `read` made of it, if good.
 */
function useCheckedText<T>(props: SettingEditorProps, initial: string, read: (text: string) => { value: T } | { problem: string }, send: (value: T) => void) {
	const [text, setText] = useState(initial);
	const [problem, setProblem] = useState<string>();
	const commit = () => {
		if (text === initial) return;
		if (!text.trim()) return props.shown.set ? props.onReset() : setText(initial);
		const checked = read(text);
		if ("problem" in checked) return setProblem(checked.problem);
		send(checked.value);
	};
	const onInput = (e: Event) => {
		const value = (e.target as HTMLInputElement).value;
		setText(value);
		const checked = value.trim() ? read(value) : undefined;
		setProblem(checked && "problem" in checked ? checked.problem : undefined);
	};
	return { text, problem, commit, onInput };
}

/** The editors' fields send their value when Enter is pressed or the field is left. */
function sendOnEnterOrLeave(commit: () => void) {
	return {
		onKeyDown: (e: KeyboardEvent) => {
			if (e.key === "Enter") {
				e.preventDefault();
				commit();
			}
		},
		onBlur: commit,
	};
}

/** What a secret's field takes: `$NAME` or `${NAME}` (the service's own rule). */
const ENV_REFERENCE = /^\$(?:\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)$/;

/**
 * A secret: set or unset, never shown; the field takes a reference to an environment variable. Anything else
 * is refused here, before it leaves the page, and the field is emptied either way.
 */
function SecretEditor(props: SettingEditorProps & { id: string; described: string }) {
	const { shown, id, described, disabled } = props;
	const [text, setText] = useState("");
	const [problem, setProblem] = useState<string>();
	const commit = () => {
		const reference = text.trim();
		if (!reference) return;
		setText(""); // never kept on the page
		if (!ENV_REFERENCE.test(reference)) {
			setProblem(`\`${props.view.key}\` takes a reference to an environment variable, such as $MY_TOKEN: never the secret itself. What was typed is not kept.`);
			return;
		}
		setProblem(undefined);
		props.onSet(reference);
	};
	return (
		<>
			<div class="setting-secret">
				<span class={`tag${shown.set ? "" : " unset"}`}>{shown.set ? `set ${REDACTED}` : "not set"}</span>
				<input
					id={id}
					type="text"
					value={text}
					disabled={disabled}
					autoComplete="off"
					spellcheck={false}
					placeholder="$ENV_VAR"
					aria-describedby={described}
					aria-invalid={props.error ? "true" : undefined}
					onInput={(e) => setText((e.target as HTMLInputElement).value)}
					{...sendOnEnterOrLeave(commit)}
				/>
			</div>
			{problem && !props.error && (
				<p class="error-text" id={`${id}-reference`} role="alert">
					{problem}
				</p>
			)}
		</>
	);
}
