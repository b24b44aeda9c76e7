/**
 * Shown in the transcript while the service has no usable model: what to do, step by step, with the paths
 * the service itself named once a prompt failed for want of a model (the default agent directory before).
 */
import { DEFAULT_SETUP_PATHS, type SetupPaths } from "../state/setup-help";

const LOCAL_MODELS_EXAMPLE = `{
  "providers": {
    "ollama": {
      "baseUrl": "http://127.0.0.1:11434/v1",
      "api": "openai-completions",
      "apiKey": "ollama",
      "models": [{ "id": "qwen2.5-coder:14b" }]
    }
  }
}`;

/**
 * `startCommand`: how the service was started (get_available_models), so the example works as typed: from a
 * checkout that is `npm start`, not `skiff`.
 */
export function SetupCard(props: { paths: SetupPaths | undefined; modelsAvailable: boolean; startCommand?: string; onOpenSettings(): void }) {
	if (props.modelsAvailable) {
		return (
			<section class="setup-card" aria-labelledby="setup-title">
				<h2 id="setup-title">Choose a model</h2>
				<p>Models are configured, but this session has none selected yet.</p>
				<button type="button" class="primary" onClick={props.onOpenSettings}>
					Open Settings
				</button>
			</section>
		);
	}
	const paths = props.paths ?? DEFAULT_SETUP_PATHS;
	return (
		<section class="setup-card" aria-labelledby="setup-title">
			<h2 id="setup-title">Set up a model to start</h2>
			<p>Skiff runs, but it has no language model to talk to yet. Any one of these will do:</p>
			<ol>
				<li>
					<strong>A provider key in the environment</strong>
					<p>
						Start skiff with <code>ANTHROPIC_API_KEY</code>, <code>OPENAI_API_KEY</code> or <code>GEMINI_API_KEY</code> set, e.g.{" "}
						<code>ANTHROPIC_API_KEY=sk-ant-… {props.startCommand ?? "skiff"}</code>.
					</p>
				</li>
				<li>
					<strong>Stored credentials</strong>
					<p>
						Add them to <code>{paths.auth}</code>, e.g. <code>{'{"anthropic": {"type": "api_key", "key": "sk-ant-…"}}'}</code>.
					</p>
				</li>
				<li>
					<strong>A local model (Ollama, llama.cpp, vLLM)</strong>
					<p>
						Describe it in <code>{paths.models}</code> (for llama.cpp use <code>http://127.0.0.1:8080/v1</code>):
					</p>
					<pre>{LOCAL_MODELS_EXAMPLE}</pre>
				</li>
			</ol>
			<p class="then">
				Then restart skiff (or pick the model with <code>--model provider/id</code>).
				{paths.exact ? "" : " The agent directory is $SKIFF_AGENT_DIR when set."}
			</p>
		</section>
	);
}
