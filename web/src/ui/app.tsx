/** The page: header (status, session, streaming badge), transcript and composer, and the panel area. */
import { useEffect, useMemo, useReducer, useState } from "preact/hooks";
import { Controller } from "../state/controller";
import { Composer } from "./composer";
import { StatusPill, TokenForm } from "./connection-bar";
import { SessionsPanel } from "./sessions-panel";
import { SettingsPanel } from "./settings-panel";
import { TranscriptView } from "./transcript-view";
import { redact } from "../render/redact";

/** Panels with a backend today; later features add theirs here (never shown as empty mock-ups). */
const PANELS = [
	{ id: "sessions", label: "Sessions", View: SessionsPanel },
	{ id: "settings", label: "Settings", View: SettingsPanel },
] as const;

function wsUrl(): string {
	return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
}

export function App() {
	const controller = useMemo(() => new Controller(wsUrl()), []);
	const [, rerender] = useReducer((n: number) => n + 1, 0);
	const [panel, setPanel] = useState<string>("sessions");
	const [panelOpen, setPanelOpen] = useState(false);
	const [draft, setDraft] = useState<{ text: string; key: number }>({ text: "", key: 0 });
	useEffect(() => {
		const unsubscribe = controller.subscribe(() => rerender(undefined));
		controller.start();
		return unsubscribe;
	}, [controller]);

	const { state } = controller;
	const transcript = controller.transcript();
	const running = Boolean(transcript?.running);
	const ActivePanel = PANELS.find((p) => p.id === panel)?.View ?? SessionsPanel;
	const onFork = async (userIndex: number) => {
		const text = await controller.fork(userIndex);
		if (text !== undefined) setDraft({ text, key: draft.key + 1 });
	};

	return (
		<div class={`app${panelOpen ? " panel-open" : ""}`}>
			<header class="top">
				<div class="brand">Skiff</div>
				<StatusPill status={state.status} />
				<div class="title" title={state.session?.cwd}>
					{redact(state.session?.sessionName ?? "New session")}
				</div>
				{running && (
					<span class="badge streaming" role="status">
						streaming
					</span>
				)}
				<div class="spacer" />
				{state.session?.model && <span class="model-name">{state.session.model.id}</span>}
				<button type="button" class="panel-toggle" aria-expanded={panelOpen} onClick={() => setPanelOpen(!panelOpen)}>
					Panels
				</button>
			</header>
			{(state.status === "offline" || state.hasToken || state.statusDetail) && (
				<div class={`connection ${state.status}`}>
					<span class="detail">{state.statusDetail ?? (state.status === "connected" ? "Connected." : "")}</span>
					<TokenForm controller={controller} />
				</div>
			)}
			<main class="chat">
				{transcript ? <TranscriptView transcript={transcript} version={transcript.version} onFork={(i) => void onFork(i)} /> : <div class="transcript empty">Connecting to the service…</div>}
				<Composer key={draft.key} draft={draft.text} running={running} ready={state.ready} onSend={(t) => controller.send(t)} onAbort={() => controller.abort()} />
			</main>
			<aside class="panels" aria-label="Panels">
				<nav class="panel-tabs" role="tablist">
					{PANELS.map((p) => (
						<button key={p.id} type="button" role="tab" aria-selected={panel === p.id} onClick={() => setPanel(p.id)}>
							{p.label}
						</button>
					))}
					<button type="button" class="panel-close" onClick={() => setPanelOpen(false)} aria-label="Close panels">
						×
					</button>
				</nav>
				<ActivePanel controller={controller} />
			</aside>
			<div class="toasts" aria-live="assertive">
				{state.toasts.map((t) => (
					<div key={t.id} class="toast" role="alert">
						<span>{redact(t.text)}</span>
						<button type="button" class="link" onClick={() => controller.dismissToast(t.id)} aria-label="Dismiss">
							×
						</button>
					</div>
				))}
			</div>
		</div>
	);
}
