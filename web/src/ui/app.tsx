/**
 * The page: the main column (header, connection bar, transcript, composer) and the panel area (a sidebar, or
 * a drawer on phones), the keyboard shortcuts and their dialogs, toasts and the screen-reader live region.
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from "preact/hooks";
import type { Message } from "../../../src/client/index.js";
import type { Controller } from "../state/controller";
import { Composer } from "./composer";
import { ConnectionBar } from "./connection-bar";
import { focusComposer } from "./focus";
import { Header } from "./header";
import { registerWorker } from "./install-app";
import { CONTINUE_PROMPT, ResumeContext } from "./hidden-marks";
import { type JobLink, JobLinkContext } from "./job-link";
import { PanelArea } from "./panel-area";
import { useRunAlerts } from "./run-alerts";
import { PANELS } from "./panels/registry";
import { SessionSwitcher } from "./session-switcher";
import { SetupCard } from "./setup-card";
import { ShareDialog } from "./share-dialog";
import { ShortcutsDialog } from "./shortcuts-dialog";
import { useShortcuts } from "./shortcuts";
import { LiveRegion, Toasts } from "./toasts";
import { TranscriptView } from "./transcript-view";

/** Below this width the panel area is a drawer (the same breakpoint as the stylesheets'). */
const DRAWER_QUERY = "(max-width: 900px)";

function useMediaQuery(query: string): boolean {
	const [matches, setMatches] = useState(() => matchMedia(query).matches);
	useEffect(() => {
		const list = matchMedia(query);
		const onChange = () => setMatches(list.matches);
		list.addEventListener("change", onChange);
		return () => list.removeEventListener("change", onChange);
	}, [query]);
	return matches;
}

type DialogName = "shortcuts" | "switcher" | "share";

/** The host's page; its connection is opened before its first render (web/src/main.tsx). */
export function App({ controller }: { controller: Controller }) {
	const [, rerender] = useReducer((n: number) => n + 1, 0);
	const [panel, setPanel] = useState<string>(PANELS[0]!.id);
	const [drawerOpen, setDrawerOpen] = useState(false);
	/** The dialog shown; `n` tells one opening from the next (see closeDialog). */
	const [dialog, setDialog] = useState<{ name: DialogName; n: number }>();
	const openings = useRef(0);
	/** Shows `name`, kept as it is when it is open already; one closing but not yet gone is replaced by a new one. */
	const openDialog = (name: DialogName) =>
		setDialog((open) => (open?.name === name && document.querySelector("dialog[open]") ? open : { name, n: ++openings.current }));
	const drawer = useMediaQuery(DRAWER_QUERY);
	/** A panel chosen in the switcher: its tab takes the focus once the dialog has closed. */
	const panelFromDialog = useRef<string | undefined>(undefined);
	/** Where focus goes once the drawer has closed (the main column is inert until then). */
	const focusAfterClose = useRef<"toggle" | "composer" | undefined>(undefined);
	useLayoutEffect(() => controller.subscribe(() => rerender(undefined)), [controller]);

	// Synchronously after the render that opened or closed the drawer: a later effect could take the focus back
	// from a field the user has already moved to.
	useLayoutEffect(() => {
		if (drawer && drawerOpen) document.getElementById(`tab-${panel}`)?.focus();
		else if (focusAfterClose.current === "composer") focusComposer();
		else if (focusAfterClose.current === "toggle") document.querySelector<HTMLElement>(".panel-toggle")?.focus();
		focusAfterClose.current = undefined;
	}, [drawerOpen]);

	const closeDrawer = useCallback((focus: "toggle" | "composer") => {
		focusAfterClose.current = focus;
		setDrawerOpen(false);
	}, []);
	const done = useCallback(() => (drawerOpen ? closeDrawer("composer") : focusComposer()), [drawerOpen, closeDrawer]);
	const openPanel = (id: string) => {
		setPanel(id);
		if (drawer) setDrawerOpen(true);
	};
	// The panel in view has no news; a closed drawer shows none. Another session's news is not this one's.
	controller.news.show(drawer && !drawerOpen ? undefined : panel);
	useEffect(() => controller.news.reset(), [controller.state.sessionId]);
	// After the paint of the first bound session (an effect runs after its frame): not while the socket opens.
	useEffect(() => {
		if (controller.state.ready) registerWorker();
	}, [controller.state.ready]);
	// Delegation cards and persona runs open their job in the Jobs panel.
	const jobLink = useMemo<JobLink>(
		() => ({
			jobs: controller.jobs,
			version: controller.jobs.version,
			open: (jobId) => {
				void controller.jobs.show(jobId);
				openPanel("jobs");
			},
		}),
		[controller.jobs.version, drawer],
	);
	const shortcuts = useMemo(
		() => ({
			openShortcuts: () => openDialog("shortcuts"),
			openSwitcher: () => openDialog("switcher"),
			escape: () => {
				if (!drawer || !drawerOpen) return false;
				closeDrawer("toggle");
				return true;
			},
		}),
		[drawer, drawerOpen, closeDrawer],
	);
	useShortcuts(shortcuts);
	/**
	 * The dialog of opening `n` closed. Its close event comes a task after it closed: another dialog, or the same
	 * one opened again (Esc then Ctrl+K at once), may be shown by then, and stays.
	 */
	const closeDialog = (n: number) => {
		setDialog((open) => (open?.n === n ? undefined : open));
		requestAnimationFrame(() => {
			// A panel opened from the switcher gets the focus (its tab); otherwise the composer.
			const tab = panelFromDialog.current && document.getElementById(`tab-${panelFromDialog.current}`);
			panelFromDialog.current = undefined;
			if (tab) tab.focus();
			else focusComposer();
		});
	};

	const { state } = controller;
	const transcript = controller.transcript();
	const running = Boolean(transcript?.running) && state.ready;
	useRunAlerts(controller);
	const sessionId = state.sessionId ?? "";
	const noModel = controller.noModel();
	// The message box's session: the one shown, but while another is opened, the one it showed (boxSession).
	const box = controller.boxSession();
	const opening = state.opening && "Opening the session…";
	const modal = drawer && drawerOpen;

	const page = (
		<div class={`app${modal ? " panel-open" : ""}`} data-run={running ? "running" : "idle"}>
			<a
				class="skip-link"
				href="#composer"
				onClick={(e) => {
					e.preventDefault();
					focusComposer();
				}}
			>
				Skip to the message box
			</a>
			<div class="main" inert={modal}>
				<Header controller={controller} running={running} drawerOpen={drawerOpen} onToggleDrawer={() => (drawerOpen ? closeDrawer("toggle") : setDrawerOpen(true))} onOpenSettings={() => openPanel("settings")} onShare={() => openDialog("share")} />
				<ConnectionBar controller={controller} />
				{/* Toasts hang under the connection bar, so a toast saying the connection was lost never covers its Retry. */}
				<div class="toast-anchor">
					<Toasts toasts={state.toasts} onDismiss={(id) => controller.dismissToast(id)} />
				</div>
				{transcript && state.sessionId ? (
					<TranscriptView
						key={state.sessionId}
						transcript={transcript}
						version={transcript.version}
						onFork={(index) => void controller.fork(index).then((forked) => forked && focusComposer())}
						branches={{ tree: controller.tree, putInComposer: (text) => controller.putInComposer(sessionId, text) }}
						notice={noModel ? <SetupCard paths={state.setup} modelsAvailable={state.models.length > 0 && !state.setup} startCommand={state.startCommand} onOpenSettings={() => openPanel("settings")} /> : undefined}
					/>
				) : (
					<div class="chat">
						<div class="transcript">
							<div class="transcript-content">
								<p class="empty waiting">{state.tokenNeeded ? "Connect with the service's access token to begin." : "Connecting to the service…"}</p>
							</div>
						</div>
					</div>
				)}
				<Composer
					key={`${box}:${state.draftVersion}`}
					draft={controller.draft(box)}
					running={running}
					ready={state.ready && !opening}
					busy={opening}
					note={state.notes[box]}
					placeholder={opening || (noModel && !running ? "Set up a model first (see above), then ask the agent…" : undefined)}
					onDraft={(text) => controller.saveDraft(box, text)}
					onSend={(text, images) => controller.send(box, text, images)}
					completions={controller.completions}
					attach={(image) => controller.upload(image)}
					images={controller.attachments(box)}
					onImages={(images) => controller.keepAttachments(box, images)}
					onAbort={() => controller.abort()}
					onDismissNote={() => controller.dismissNote(box)}
				/>
			</div>
			{modal && <div class="drawer-backdrop" aria-hidden="true" onClick={() => closeDrawer("toggle")} />}
			<PanelArea controller={controller} selected={panel} onSelect={setPanel} drawer={drawer} open={drawerOpen} onClose={() => closeDrawer("toggle")} done={done} />
			<LiveRegion announcement={state.announcement} />
			{dialog?.name === "shortcuts" && <ShortcutsDialog key={dialog.n} onClose={() => closeDialog(dialog.n)} />}
			{dialog?.name === "share" && <ShareDialog key={dialog.n} controller={controller} onClose={() => closeDialog(dialog.n)} />}
			{dialog?.name === "switcher" && <SessionSwitcher key={dialog.n} controller={controller} onOpenPanel={(id) => {
						panelFromDialog.current = id;
						openPanel(id);
					}} onClose={() => closeDialog(dialog.n)} />}
		</div>
	);
	// Continue after a run a restart cut off: offered while the conversation ends there and nothing runs.
	const resume = (message: Message) => (transcript && state.ready && !running && transcript.messages.at(-1) === message ? () => void controller.send(sessionId, CONTINUE_PROMPT) : undefined);
	return (
		<JobLinkContext.Provider value={jobLink}>
			<ResumeContext.Provider value={resume}>{page}</ResumeContext.Provider>
		</JobLinkContext.Provider>
	);
}
