/** Model and thinking level of the current session. */
import type { MemoryView, ThinkingLevel } from "../../../src/client/index";
import type { Controller } from "../state/controller";

export function SettingsPanel({ controller }: { controller: Controller }) {
	const { models, thinkingLevels, session, ready, memory } = controller.state;
	const current = session?.model ? `${session.model.provider}/${session.model.id}` : "";
	return (
		<section class="panel settings" aria-label="Settings">
			<label>
				Model
				<select
					value={current}
					disabled={!ready || models.length === 0}
					onChange={(e) => {
						const [provider, ...id] = (e.target as HTMLSelectElement).value.split("/");
						void controller.setModel(provider!, id.join("/"));
					}}
				>
					{!current && <option value="">No model configured</option>}
					{models.map((m) => (
						<option key={`${m.provider}/${m.id}`} value={`${m.provider}/${m.id}`}>
							{m.provider}/{m.name ?? m.id}
						</option>
					))}
				</select>
			</label>
			<label>
				Thinking
				<select value={session?.thinkingLevel ?? "off"} disabled={!ready} onChange={(e) => void controller.setThinkingLevel((e.target as HTMLSelectElement).value as ThinkingLevel)}>
					{thinkingLevels.map((level) => (
						<option key={level} value={level}>
							{level}
						</option>
					))}
				</select>
			</label>
			{memory && (
				<label>
					Memory
					<select value={memory.backend} disabled={!ready} onChange={(e) => void controller.setMemoryBackend((e.target as HTMLSelectElement).value as MemoryView["backend"])}>
						<option value="local">local notes</option>
						<option value="remote" disabled={!memory.remoteApiUrl}>
							remote server{memory.remoteApiUrl ? "" : " (not configured)"}
						</option>
						<option value="off">off</option>
					</select>
					<span class="hint">
						{memory.activeTools.length ? `Tools: ${memory.activeTools.join(", ")}` : "No memory tools"}
						{memory.shared ? " · applies to every top-level session" : " · this session only"}
					</span>
				</label>
			)}
			{models.length === 0 && <p class="hint">No model has credentials. Set a provider key (e.g. ANTHROPIC_API_KEY) or add a provider to models.json in the agent directory, then restart skiff.</p>}
		</section>
	);
}
