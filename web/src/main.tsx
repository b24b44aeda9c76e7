import { render } from "preact";
import { isGuestPath } from "./collab/guest-link";
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

// At a collaboration link the page is a guest's view of one shared session, never the host's app.
const guest = isGuestPath(location.pathname);
if (!guest) installApp();
render(guest ? <GuestView /> : <App />, document.getElementById("app")!);
