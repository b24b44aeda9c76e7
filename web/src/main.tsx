import { render } from "preact";
import { App } from "./ui/app";
import "./styles.css";

render(<App />, document.getElementById("app")!);
