/** What every panel is given and how it is registered (see registry.ts and docs/web.md, "Adding a panel"). */
import type { FunctionComponent } from "preact";
import type { Controller } from "../../state/controller";
import type { IconName } from "../icons";

export interface PanelProps {
	/** The page's state and every command (controller.state, controller.<command>()). */
	controller: Controller;
	/**
	 * Call when an action finishes what the user came to the panel for (e.g. switching session): on a phone
	 * the drawer closes, and focus returns to the message box.
	 */
	done(): void;
}

export interface PanelDefinition {
	/** Stable id: the tab is `tab-<id>`, its panel `panel-<id>`. */
	id: string;
	/** The tab's text, and the panel's heading. */
	label: string;
	/** Its icon in the rail. */
	icon: IconName;
	/** The rail's group it sits in (see PANEL_GROUPS). */
	group: PanelGroup;
	View: FunctionComponent<PanelProps>;
}

/** The rail's groups, in order: what a panel is about. */
export const PANEL_GROUPS = [
	{ id: "conversation", label: "Conversation" },
	{ id: "planning", label: "Planning" },
	{ id: "agents", label: "Agents" },
	{ id: "service", label: "Service" },
] as const;
export type PanelGroup = (typeof PANEL_GROUPS)[number]["id"];
