/**
 * Every panel of the panel area, in tab order. A new panel is one file in this folder (a View rendering a
 * PanelLayout, see panel-layout.tsx) and one line here. Only panels with a working backend are listed: never
 * an empty mock-up.
 */
import { MaintenancePanel } from "./maintenance-panel";
import type { PanelDefinition } from "./panel";
import { GoalPanel } from "./goal-panel";
import { JobsPanel } from "./jobs-panel";
import { PersonasPanel } from "./personas-panel";
import { SessionsPanel } from "./sessions-panel";
import { SettingsPanel } from "./settings-panel";
import { SideChatPanel } from "./side-chat-panel";
import { TodoPanel } from "./todo-panel";
import { TreePanel } from "./tree-panel";
import { WorkflowsPanel } from "./workflows-panel";

export const PANELS: readonly PanelDefinition[] = [
	{ id: "sessions", label: "Sessions", View: SessionsPanel },
	{ id: "tree", label: "Tree", View: TreePanel },
	{ id: "todo", label: "Todo", View: TodoPanel },
	{ id: "goal", label: "Goal", View: GoalPanel },
	{ id: "side-chat", label: "Side chat", View: SideChatPanel },
	{ id: "jobs", label: "Jobs", View: JobsPanel },
	{ id: "personas", label: "Personas", View: PersonasPanel },
	{ id: "workflows", label: "Workflows", View: WorkflowsPanel },
	{ id: "maintenance", label: "Maintenance", View: MaintenancePanel },
	{ id: "settings", label: "Settings", View: SettingsPanel },
];
