/**
 * Skiff's icon: the logo of the page's header (web/src/ui/icons.tsx), white on the page's accent, as one SVG
 * document. The listener serves it for the installed app (/web/icon.svg); the page draws its tab's icon from it,
 * with a coloured dot in the corner for a run's state.
 */

/** The page's accent (web/src/styles/tokens.css, light theme). */
export const APP_ACCENT = "#2f5be0";

/** The logo's strokes (24×24), drawn by the page's header (web/src/ui/icons.tsx) and in the icon below. */
export const LOGO_PATH = "M3 16.5c2.8 1.9 5.8 2.8 9 2.8s6.2-.9 9-2.8l-2 3.5H5zM12 3v12M12 4l6 9.5h-6M11 6.5 6.5 13.5H11";

export function appIconSvg(dot?: string): string {
	const mark = dot ? `<circle cx="19" cy="5" r="5" fill="${dot}" stroke="#fff" stroke-width="1.5"/>` : "";
	return (
		`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect width="24" height="24" rx="5" fill="${APP_ACCENT}"/>` +
		'<path transform="translate(3.6 3.6) scale(.7)" fill="none" stroke="#fff" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" ' +
		`d="${LOGO_PATH}"/>${mark}</svg>`
	);
}
