/**
 * The panel area: a rail of tabs, one per registered panel, grouped (PANEL_GROUPS), each an icon with its
 * label, a tooltip and a badge when the panel has news; and one tab panel per registered panel, only the
 * selected one rendered. The rail is a vertical tablist with a roving tabindex: arrows, Home and End move
 * between tabs (and choose them). It holds every panel at once (it scrolls on its own only on a window too low
 * for it), so none is ever out of reach and the current one is always in view. A sidebar on wide screens; on
 * phones a drawer (see app.tsx) that is inert, hidden and out of the tab order while closed.
 */
import { Fragment } from "preact";
import type { Controller } from "../state/controller";
import { Icon } from "./icons";
import { PANEL_GROUPS } from "./panels/panel";
import { PANELS } from "./panels/registry";

export interface PanelAreaProps {
	controller: Controller;
	selected: string;
	onSelect(id: string): void;
	/** Phone layout: the area is a drawer. */
	drawer: boolean;
	open: boolean;
	onClose(): void;
	/** See PanelProps.done. */
	done(): void;
}

/** The tab a key moves to from tab `at` (vertical rail, but Left/Right work too), if it is a moving key. */
function tabFor(key: string, at: number): number | undefined {
	const last = PANELS.length - 1;
	if (key === "ArrowDown" || key === "ArrowRight") return at >= last ? 0 : at + 1;
	if (key === "ArrowUp" || key === "ArrowLeft") return at <= 0 ? last : at - 1;
	if (key === "Home") return 0;
	if (key === "End") return last;
	return undefined;
}

export function PanelArea(props: PanelAreaProps) {
	const hidden = props.drawer && !props.open;
	const onTabKey = (event: KeyboardEvent) => {
		const next = PANELS[tabFor(event.key, PANELS.findIndex((p) => p.id === props.selected)) ?? -1];
		if (!next) return;
		// Also keeps Home/End/arrows from scrolling the rail or the page.
		event.preventDefault();
		props.onSelect(next.id);
		const tab = document.getElementById(`tab-${next.id}`);
		tab?.focus();
		tab?.scrollIntoView({ block: "nearest" });
	};
	return (
		<aside id="panels" class="panels" aria-label="Panels" inert={hidden} aria-hidden={hidden ? "true" : undefined}>
			<div class="panel-rail">
				<button type="button" class="panel-close ghost icon" onClick={props.onClose} aria-label="Close panels">
					<Icon name="close" />
				</button>
				<div class="panel-tabs" role="tablist" aria-label="Panels" aria-orientation="vertical" onKeyDown={onTabKey}>
					{PANEL_GROUPS.map((group, n) => (
						<Fragment key={group.id}>
							{n > 0 && <span class="rail-divider" aria-hidden="true" />}
							{PANELS.filter((p) => p.group === group.id).map((p) => {
								const news = props.controller.news.get(p.id);
								return (
									<button
										key={p.id}
										type="button"
										role="tab"
										id={`tab-${p.id}`}
										data-group={group.id}
										aria-controls={`panel-${p.id}`}
										aria-selected={props.selected === p.id}
										aria-describedby={news ? `news-${p.id}` : undefined}
										tabIndex={props.selected === p.id ? 0 : -1}
										title={`${p.label} (${group.label})${news ? `: ${news}` : ""}`}
										onClick={(e) => {
											props.onSelect(p.id);
											(e.currentTarget as HTMLElement).scrollIntoView({ block: "nearest" });
										}}
									>
										<Icon name={p.icon} />
										<span class="rail-label">{p.label}</span>
										{news && <span class="rail-badge" id={`news-${p.id}`} aria-label={news} role="img" />}
									</button>
								);
							})}
						</Fragment>
					))}
				</div>
			</div>
			<div class="panel-stack">
				{PANELS.map(({ id, View }) => (
					<div key={id} class={`panel ${id}`} role="tabpanel" id={`panel-${id}`} aria-labelledby={`tab-${id}`} hidden={props.selected !== id}>
						{props.selected === id && <View controller={props.controller} done={props.done} />}
					</div>
				))}
			</div>
		</aside>
	);
}
