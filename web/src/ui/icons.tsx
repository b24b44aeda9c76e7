/** The few line icons the page uses (24×24 strokes), drawn inline so the page stays one file. */
const PATHS = {
	logo: "M3 16.5c2.8 1.9 5.8 2.8 9 2.8s6.2-.9 9-2.8l-2 3.5H5zM12 3v12M12 4l6 9.5h-6M11 6.5 6.5 13.5H11",
	send: "M12 19V5M5.5 11.5 12 5l6.5 6.5",
	stop: "M7 7h10v10H7z",
	panels: "M4 5h16v14H4zM15 5v14",
	close: "M6 6l12 12M18 6 6 18",
	fork: "M7 4v7a4 4 0 0 0 4 4h2M7 4a1.8 1.8 0 1 0 0 .01M17 15a1.8 1.8 0 1 0 0 .01M7 11v9",
	plus: "M12 5v14M5 12h14",
	down: "M12 5v14M5.5 12.5 12 19l6.5-6.5",
	share: "M21 5a3 3 0 1 1-6 0 3 3 0 1 1 6 0M9 12a3 3 0 1 1-6 0 3 3 0 1 1 6 0M21 19a3 3 0 1 1-6 0 3 3 0 1 1 6 0M8.6 13.5l6.8 4M15.4 6.5l-6.8 4",
	copy: "M9 9h10v11H9zM15 9V5H5v11h4",
	keyboard: "M3 7h18v10H3zM7 11h.01M11 11h.01M15 11h.01M8 14.5h8",
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name }: { name: IconName }) {
	return (
		<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
			<path d={PATHS[name]} />
		</svg>
	);
}
