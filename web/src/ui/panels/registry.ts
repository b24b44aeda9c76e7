/**
 * Every panel of the panel area, in the rail's order (grouped by PANEL_GROUPS: a panel's place is its group's). A new panel is one file in this folder (a View rendering a
 * PanelLayout, see panel-layout.tsx) and one line here. Only panels with a working backend are listed: never
 * an empty mock-up.
 */
import { ChangesPanel } from "./changes-panel";
import { MaintenancePanel } from "./maintenance-panel";
import type { PanelDefinition } from "./panel";
import { GoalPanel } from "./goal-panel";
import { JobsPanel } from "./jobs-panel";
import { PersonasPanel } from "./personas-panel";
import { FilesPanel } from "./files-panel";
import { SessionsPanel } from "./sessions-panel";
import { SettingsPanel } from "./settings-panel";
import { SideChatPanel } from "./side-chat-panel";
import { TodoPanel } from "./todo-panel";
import { TreePanel } from "./tree-panel";
import { WorkflowsPanel } from "./workflows-panel";

export const PANELS: readonly PanelDefinition[] = [
	{ id: "sessions", label: "Sessions", icon: "sessions", group: "conversation", View: SessionsPanel },
	{ id: "tree", label: "Tree", icon: "tree", group: "conversation", View: TreePanel },
	{ id: "changes", label: "Changes", icon: "changes", group: "conversation", View: ChangesPanel },
	{ id: "files", label: "Files", icon: "folder", group: "conversation", View: FilesPanel },
	{ id: "todo", label: "Todo", icon: "todo", group: "planning", View: TodoPanel },
	{ id: "goal", label: "Goal", icon: "goal", group: "planning", View: GoalPanel },
	{ id: "workflows", label: "Workflows", icon: "workflows", group: "planning", View: WorkflowsPanel },
	{ id: "jobs", label: "Jobs", icon: "jobs", group: "agents", View: JobsPanel },
	{ id: "personas", label: "Personas", icon: "personas", group: "agents", View: PersonasPanel },
	{ id: "side-chat", label: "Side chat", icon: "chat2", group: "agents", View: SideChatPanel },
	{ id: "settings", label: "Settings", icon: "settings", group: "service", View: SettingsPanel },
	{ id: "maintenance", label: "Maintenance", icon: "health", group: "service", View: MaintenancePanel },
];
