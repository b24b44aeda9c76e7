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

/** The longest the host's page waits for its socket to open before its first render (ms). */
const FIRST_RENDER_WAIT_MS = 100;

const root = document.getElementById("app")!;
// At a collaboration link the page is a guest's view of one shared session, never the host's app.
if (isGuestPath(location.pathname)) render(<GuestView />, root);
else {
	installApp();
	// The socket opens first, and the page renders once it has opened, so the first bind's commands (one flight)
	// are on their way while the page renders, styles and lays itself out, and their answers are in when its
	// first frame is drawn (docs/benchmarks.md, the web page). Rendered first, the page sent them only after its
	// first frame. A socket that fails, or takes longer than FIRST_RENDER_WAIT_MS, does not hold the page back.
	const controller = new Controller(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
	let shown = false;
	const show = () => {
		if (shown) return;
		shown = true;
		clearTimeout(wait);
		stop();
		render(<App controller={controller} />, root);
	};
	// Not within the client's own status notification: right after it.
	const stop = controller.afterOpening(() => queueMicrotask(show));
	const wait = setTimeout(show, FIRST_RENDER_WAIT_MS);
	controller.start();
}
