/** The bar over the conversation: the app's name (h1), connection status, session title, model and the panels button. */
import type { Controller } from "../state/controller";
import { redact } from "../render/redact";
import { folderName } from "../state/session-title";
import { StatusPill } from "./connection-bar";
import { Icon } from "./icons";
import { ShareButton } from "./share-dialog";

/** The app's name with its logo, on the host's page and a guest's. */
export function Brand() {
	return (
		<h1 class="brand">
			<Icon name="logo" />
			<span>Skiff</span>
		</h1>
	);
}

export function Header(props: { controller: Controller; running: boolean; drawerOpen: boolean; onToggleDrawer(): void; onOpenSettings(): void; onShare(): void }) {
	const { state } = props.controller;
	const model = props.controller.model();
	const news = props.controller.news.any();
	const title = state.session ? redact(props.controller.title()) : "";
	return (
		<header class="top">
			<Brand />
			<StatusPill status={state.status} />
			{/* The project, then the title: side by side, or on a phone the project in small type above the title. */}
			<div class="where">
				{state.session && (
					<div class="project" title={state.session.cwd}>
						<span class="sr-only">Project: </span>
						{folderName(state.session.cwd)}
					</div>
				)}
				{/* Cut with an ellipsis only when it does not fit; the tooltip has it whole, with the folder. */}
				<div class="title" title={state.session ? `${title}\n${state.session.cwd}` : undefined}>
					{title}
				</div>
			</div>
			{props.running && <span class="badge streaming">working</span>}
			<div class="spacer" />
			<ShareButton controller={props.controller} onOpen={props.onShare} />
			{state.ready && (
				<button type="button" class={`model-chip ghost small${model ? "" : " missing"}`} onClick={props.onOpenSettings} title="Model settings">
					<span class="model-name">{model ? (model.name ?? model.id) : "No model set up"}</span>
				</button>
			)}
			<button type="button" class="panel-toggle ghost icon" aria-label="Panels" aria-description={news} title={news ? `Panels: ${news}` : "Panels"} aria-controls="panels" aria-expanded={props.drawerOpen} onClick={props.onToggleDrawer}>
				<Icon name="panels" />
				{news && <span class="rail-badge" aria-hidden="true" />}
			</button>
		</header>
	);
}
