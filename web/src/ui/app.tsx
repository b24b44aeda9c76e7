/**
 * The page: the main column (header, connection bar, transcript, composer) and the panel area (a sidebar, or
 * a drawer on phones), the keyboard shortcuts and their dialogs, toasts and the screen-reader live region.
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from "preact/hooks";
import { Controller } from "../state/controller";
import { Composer } from "./composer";
import { ConnectionBar } from "./connection-bar";
import { focusComposer } from "./focus";
import { Header } from "./header";
import { type JobLink, JobLinkContext } from "./job-link";
import { PanelArea } from "./panel-area";
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

function wsUrl(): string {
	return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
}

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

export function App() {
	const controller = useMemo(() => new Controller(wsUrl()), []);
	const [, rerender] = useReducer((n: number) => n + 1, 0);
	const [panel, setPanel] = useState<string>(PANELS[0]!.id);
	const [drawerOpen, setDrawerOpen] = useState(false);
	const [dialog, setDialog] = useState<"shortcuts" | "switcher" | "share">();
	const drawer = useMediaQuery(DRAWER_QUERY);
	/** A panel chosen in the switcher: its tab takes the focus once the dialog has closed. */
	const panelFromDialog = useRef<string | undefined>(undefined);
	/** Where focus goes once the drawer has closed (the main column is inert until then). */
	const focusAfterClose = useRef<"toggle" | "composer" | undefined>(undefined);
	// A layout effect, so that the connection opens before the first paint rather than a frame after it (an effect
	// runs once the frame is painted): the first render of a session waits for its round trips.
	useLayoutEffect(() => {
		const unsubscribe = controller.subscribe(() => rerender(undefined));
		controller.start();
		return unsubscribe;
	}, [controller]);

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
			openShortcuts: () => setDialog("shortcuts"),
			openSwitcher: () => setDialog("switcher"),
			escape: () => {
				if (!drawer || !drawerOpen) return false;
				closeDrawer("toggle");
				return true;
			},
		}),
		[drawer, drawerOpen, closeDrawer],
	);
	useShortcuts(shortcuts);
	/** A dialog closed (its close event can come after another dialog was asked for: that one stays). */
	const closeDialog = (which: "shortcuts" | "switcher" | "share") => {
		setDialog((open) => (open === which ? undefined : open));
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
	const sessionId = state.sessionId ?? "";
	const noModel = controller.noModel();
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
				<Header controller={controller} running={running} drawerOpen={drawerOpen} onToggleDrawer={() => (drawerOpen ? closeDrawer("toggle") : setDrawerOpen(true))} onOpenSettings={() => openPanel("settings")} onShare={() => setDialog("share")} />
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
					key={`${sessionId}:${state.draftVersion}`}
					draft={controller.draft(sessionId)}
					running={running}
					ready={state.ready}
					note={state.notes[sessionId]}
					placeholder={noModel && !running ? "Set up a model first (see above), then ask the agent…" : undefined}
					onDraft={(text) => controller.saveDraft(sessionId, text)}
					onSend={(text) => controller.send(sessionId, text)}
					onAbort={() => controller.abort()}
					onDismissNote={() => controller.dismissNote(sessionId)}
				/>
			</div>
			{modal && <div class="drawer-backdrop" aria-hidden="true" onClick={() => closeDrawer("toggle")} />}
			<PanelArea controller={controller} selected={panel} onSelect={setPanel} drawer={drawer} open={drawerOpen} onClose={() => closeDrawer("toggle")} done={done} />
			<LiveRegion announcement={state.announcement} />
			{dialog === "shortcuts" && <ShortcutsDialog onClose={() => closeDialog("shortcuts")} />}
			{dialog === "share" && <ShareDialog controller={controller} onClose={() => closeDialog("share")} />}
			{dialog === "switcher" && <SessionSwitcher controller={controller} onOpenPanel={(id) => {
						panelFromDialog.current = id;
						openPanel(id);
					}} onClose={() => closeDialog("switcher")} />}
		</div>
	);
	return <JobLinkContext.Provider value={jobLink}>{page}</JobLinkContext.Provider>;
}
