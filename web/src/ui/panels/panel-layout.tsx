/**
 * The layout every panel shares: a header (its h2 title and actions), a body that scrolls on its own, and the
 * building blocks inside it: sections with an h3, an empty state, and what a panel shows until its session's
 * value has loaded.
 */
import type { ComponentChildren } from "preact";
import type { Snapshot } from "../../state/panel-context";

export function PanelLayout(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
	return (
		<>
			<div class="panel-header">
				<h2>{props.title}</h2>
				{props.actions && <div class="panel-actions">{props.actions}</div>}
			</div>
			<div class="panel-body">{props.children}</div>
		</>
	);
}

export function PanelSection(props: { title: string; children: ComponentChildren }) {
	return (
		<section class="panel-section" aria-label={props.title}>
			<h3>{props.title}</h3>
			{props.children}
		</section>
	);
}

export function EmptyState(props: { title: string; children?: ComponentChildren }) {
	return (
		<div class="empty-state">
			<strong>{props.title}</strong>
			{props.children}
		</div>
	);
}

/**
 * A session's value that is not there yet (show the panel's content only once `snapshot.state` is "loaded"):
 * loading, or waiting for the connection before that; or failed, with the reason and a way to try again.
 */
export function SnapshotPending(props: { snapshot: Snapshot<unknown> | undefined; ready: boolean; loading: string; failed: string; onRetry(): void }) {
	const { snapshot } = props;
	if (snapshot?.state === "failed") {
		return (
			<EmptyState title={props.failed}>
				<span>{snapshot.error}</span>
				<button type="button" class="small" onClick={props.onRetry}>
					Try again
				</button>
			</EmptyState>
		);
	}
	return <p class="hint">{props.ready ? props.loading : "Waiting for the connection…"}</p>;
}
