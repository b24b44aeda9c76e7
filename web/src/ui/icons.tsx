/** The few line icons the page uses (24×24 strokes), drawn inline so the page stays one file. */
import { LOGO_PATH } from "../../../src/shared/app-icon.js";

const PATHS = {
	logo: LOGO_PATH,
	send: "M12 19V5M5.5 11.5 12 5l6.5 6.5",
	stop: "M7 7h10v10H7z",
	panels: "M4 5h16v14H4zM15 5v14",
	close: "M6 6l12 12M18 6 6 18",
	fork: "M7 4v7a4 4 0 0 0 4 4h2M7 4a1.8 1.8 0 1 0 0 .01M17 15a1.8 1.8 0 1 0 0 .01M7 11v9",
	plus: "M12 5v14M5 12h14",
	down: "M12 5v14M5.5 12.5 12 19l6.5-6.5",
	share: "M21 5a3 3 0 1 1-6 0 3 3 0 1 1 6 0M9 12a3 3 0 1 1-6 0 3 3 0 1 1 6 0M21 19a3 3 0 1 1-6 0 3 3 0 1 1 6 0M8.6 13.5l6.8 4M15.4 6.5l-6.8 4",
	copy: "M9 9h10v11H9zM15 9V5H5v11h4",
	check: "M5 12.5l4.5 4.5L19 7",
	edit: "M4 20h4L19 9l-4-4L4 16zM13.5 6.5l4 4",
	retry: "M20 12a8 8 0 1 1-2.3-5.7M20 4v5h-5",
	// The panels' rail.
	sessions: "M4 5h16v11H9l-5 4z",
	tree: "M6 4v16M6 9h8M6 17h8M14 9a2 2 0 1 0 4 0a2 2 0 1 0-4 0M14 17a2 2 0 1 0 4 0a2 2 0 1 0-4 0",
	todo: "M4 6l2 2 3-3M4 13l2 2 3-3M12 7h8M12 14h8M12 19h8",
	goal: "M3 12a9 9 0 1 0 18 0a9 9 0 1 0-18 0M8 12a4 4 0 1 0 8 0a4 4 0 1 0-8 0M12 12h.01",
	workflows: "M4 5h6v5H4zM14 14h6v5h-6zM7 10v6.5h7",
	jobs: "M4 8h16v11H4zM9 8V5h6v3M4 13h16",
	personas: "M8.5 7.5a3.5 3.5 0 1 0 7 0a3.5 3.5 0 1 0-7 0M5 20c1.2-3.6 3.8-5.5 7-5.5s5.8 1.9 7 5.5",
	chat2: "M3 5h11v8H8l-5 4zM17 9h4v10l-4-3h-5v-3",
	settings: "M4 7h9M17 7h3M4 17h3M11 17h9M15 5v4M9 15v4",
	health: "M3 12h4l3-7 4 14 3-7h4",
	folder: "M3 6h6l2 2h10v11H3z",
	file: "M6 3h8l4 4v14H6zM14 3v4h4",
	changes: "M5 3h10l4 4v14H5zM12 8v6M9 11h6M9 17h6",
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name }: { name: IconName }) {
	return (
		<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
			<path d={PATHS[name]} />
		</svg>
	);
}
