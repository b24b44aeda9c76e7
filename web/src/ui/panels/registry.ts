/**
 * Every panel of the panel area, in tab order. A new panel is one file in this folder (a View rendering a
 * PanelLayout, see panel-layout.tsx) and one line here. Only panels with a working backend are listed: never
 * an empty mock-up.
 */
import type { PanelDefinition } from "./panel";
import { JobsPanel } from "./jobs-panel";
import { SessionsPanel } from "./sessions-panel";
import { SettingsPanel } from "./settings-panel";
import { WorkflowsPanel } from "./workflows-panel";

export const PANELS: readonly PanelDefinition[] = [
	{ id: "sessions", label: "Sessions", View: SessionsPanel },
	{ id: "settings", label: "Settings", View: SettingsPanel },
	{ id: "jobs", label: "Jobs", View: JobsPanel },
	{ id: "workflows", label: "Workflows", View: WorkflowsPanel },
];
