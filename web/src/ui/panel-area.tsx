/**
 * The panel area: a tab strip (scrolls sideways when the tabs outnumber its width; arrow keys move between
 * tabs) and one tab panel per registered panel, only the selected one rendered. A sidebar on wide screens; on
 * phones a drawer (see app.tsx) that is inert, hidden and out of the tab order while closed.
 */
import type { Controller } from "../state/controller";
import { Icon } from "./icons";
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

export function PanelArea(props: PanelAreaProps) {
	const hidden = props.drawer && !props.open;
	const onTabKey = (event: KeyboardEvent) => {
		const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
		const at = PANELS.findIndex((p) => p.id === props.selected);
		const next = step ? PANELS[(at + step + PANELS.length) % PANELS.length] : event.key === "Home" ? PANELS[0] : event.key === "End" ? PANELS.at(-1) : undefined;
		if (!next) return;
		event.preventDefault();
		props.onSelect(next.id);
		requestAnimationFrame(() => document.getElementById(`tab-${next.id}`)?.focus());
	};
	return (
		<aside id="panels" class="panels" aria-label="Panels" inert={hidden} aria-hidden={hidden ? "true" : undefined}>
			<div class="panels-head">
				<div class="panel-tabs" role="tablist" aria-label="Panels" onKeyDown={onTabKey}>
					{PANELS.map((p) => (
						<button
							key={p.id}
							type="button"
							role="tab"
							id={`tab-${p.id}`}
							aria-controls={`panel-${p.id}`}
							aria-selected={props.selected === p.id}
							tabIndex={props.selected === p.id ? 0 : -1}
							onClick={(e) => {
								props.onSelect(p.id);
								(e.currentTarget as HTMLElement).scrollIntoView({ block: "nearest", inline: "nearest" });
							}}
						>
							{p.label}
						</button>
					))}
				</div>
				<button type="button" class="panel-close ghost icon" onClick={props.onClose} aria-label="Close panels">
					<Icon name="close" />
				</button>
			</div>
			{PANELS.map(({ id, View }) => (
				<div key={id} class={`panel ${id}`} role="tabpanel" id={`panel-${id}`} aria-labelledby={`tab-${id}`} hidden={props.selected !== id}>
					{props.selected === id && <View controller={props.controller} done={props.done} />}
				</div>
			))}
		</aside>
	);
}
