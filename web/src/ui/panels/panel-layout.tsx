/**
 * The layout every panel shares: a header (its h2 title and actions), a body that scrolls on its own, and the
 * building blocks inside it: sections with an h3, and an empty state.
 */
import type { ComponentChildren } from "preact";

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
