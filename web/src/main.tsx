import { render } from "preact";
import { App } from "./ui/app";
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

render(<App />, document.getElementById("app")!);
