/**
 * Knowing when it is done, from another tab: the tab's title and icon say whether the session shown runs, is
 * done or needs attention (else another followed session's news), and, while the page is hidden, news of any
 * followed session becomes a system notification (clicking it brings this tab to that session) and a beep, as
 * chosen in Settings (alert-prefs.ts). The user acknowledges news by acting in the page or opening the session.
 */
import { useEffect } from "preact/hooks";
import { appIconSvg } from "../../../src/shared/app-icon.js";
import { redact } from "../render/redact";
import type { Controller } from "../state/controller";
import { alertPref, beep, notificationsOn } from "../state/alert-prefs";
import type { RunNews } from "../state/run-watch";

/** The dot on the tab's icon: the run's state. */
const DOTS = { running: "#e39b00", done: "#1f9d55", attention: "#d93025" } as const;

/** The app's icon with a dot in the corner (drawn here: the page loads no image). */
function icon(dot: string | undefined): string {
	return `data:image/svg+xml,${encodeURIComponent(appIconSvg(dot))}`;
}

/** A followed session's title by the one rule (the list's row; the shown session's own title). */
function titleOf(controller: Controller, sessionId: string): string {
	if (sessionId === controller.state.sessionId) return controller.title();
	const row = controller.state.sessions.all.find((r) => r.sessionId === sessionId);
	return row ? controller.rowTitle(row) : "A session";
}

function favicon(): HTMLLinkElement {
	let link = document.querySelector<HTMLLinkElement>("link[rel=icon]");
	if (!link) {
		link = document.createElement("link");
		link.rel = "icon";
		document.head.append(link);
	}
	return link;
}

/** Shows the run's state in the tab: its title, and its icon's dot. */
function paintTab(controller: Controller): void {
	const { sessionId, ready } = controller.state;
	const running = ready && Boolean(controller.transcript()?.running);
	const news = running ? undefined : (controller.runs.mark(sessionId) ?? controller.runs.other(sessionId));
	const state = running ? "running" : news?.mark;
	const name = ready && sessionId ? redact(titleOf(controller, running || !news ? sessionId : news.sessionId)) : "";
	const prefix = state === "running" ? "Running: " : state === "done" ? "Done: " : state === "attention" ? "Needs attention: " : "";
	const title = name ? `${prefix}${name} · Skiff` : "Skiff";
	if (document.title !== title) document.title = title;
	const link = favicon();
	const href = icon(state && DOTS[state]);
	if (link.getAttribute("href") !== href) link.href = href;
}

export function useRunAlerts(controller: Controller): void {
	const { sessionId } = controller.state;
	useEffect(() => paintTab(controller));
	// Opening a session is seeing it; so is acting in the page while it shows.
	useEffect(() => controller.runs.seen(sessionId), [sessionId]);
	useEffect(() => {
		const acknowledge = () => controller.runs.seen(controller.state.sessionId);
		addEventListener("pointerdown", acknowledge, true);
		addEventListener("keydown", acknowledge, true);
		const unsubscribe = controller.runs.onChange((news) => {
			// Once every listener has taken the event (the transcript's `running` among them).
			queueMicrotask(() => paintTab(controller));
			if (news) alert(controller, news);
		});
		return () => {
			unsubscribe();
			removeEventListener("pointerdown", acknowledge, true);
			removeEventListener("keydown", acknowledge, true);
		};
	}, [controller]);
}

/** News while the page is hidden: a notification naming the session (and a beep), as the user chose. */
function alert(controller: Controller, news: RunNews): void {
	if (document.visibilityState !== "hidden") return;
	if (alertPref("sound")) beep();
	if (!notificationsOn()) return;
	const notification = new Notification(redact(titleOf(controller, news.sessionId)), { body: redact(news.what).slice(0, 200), tag: news.sessionId });
	notification.onclick = () => {
		notification.close();
		focus();
		if (news.sessionId !== controller.state.sessionId) void controller.switchSession({ sessionId: news.sessionId, path: "", loaded: true });
	};
}
