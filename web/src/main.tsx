import { render } from "preact";
import { isGuestPath } from "./collab/guest-link";
import { Controller } from "./state/controller";
import { App } from "./ui/app";
import { GuestView } from "./ui/guest-view";
import { installApp } from "./ui/install-app";
import "./styles/tokens.css";
import "./styles/base.css";
import "./styles.css";
import "./styles/app.css";
import "./styles/transcript.css";
import "./styles/composer.css";
import "./styles/panels.css";
import "./styles/jobs.css";
import "./styles/personas.css";
import "./styles/workflows.css";
import "./styles/dialogs.css";
import "./styles/tree.css";
import "./styles/settings.css";
import "./styles/maintenance.css";
import "./styles/collab.css";

/** The longest the host's page waits for its first bind before its first render (ms). */
const FIRST_RENDER_WAIT_MS = 150;

const root = document.getElementById("app")!;
// At a collaboration link the page is a guest's view of one shared session, never the host's app.
if (isGuestPath(location.pathname)) render(<GuestView />, root);
else {
	installApp();
	// The socket opened as the document was read (index.html; the client takes it over: state/early-socket.ts), and
	// the page renders once its first bind has ended: its commands go out in one flight as the socket opens, and the
	// first render is of the bound session (the setup card, or the newest messages): one style, layout and paint
	// rather than one for an empty shell and another once the answers are in (docs/benchmarks.md, the web page). A
	// socket that fails, or a bind that takes longer than FIRST_RENDER_WAIT_MS, does not hold the page back.
	const controller = new Controller(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
	let shown = false;
	const show = () => {
		if (shown) return;
		shown = true;
		clearTimeout(wait);
		stop();
		controller.rendering();
		render(<App controller={controller} />, root);
	};
	// Not within the controller's own bind or status notification: right after it.
	const stop = controller.afterFirstBind(() => queueMicrotask(show));
	const wait = setTimeout(show, FIRST_RENDER_WAIT_MS);
	controller.start();
}
