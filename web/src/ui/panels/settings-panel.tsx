/**
 * Settings of the current session: model and thinking level (`set_model`, `set_thinking_level`), the memory
 * backend (`memory_set_backend`: this run of the service only, never saved), and the token saved in this tab.
 */
import type { MemoryView, ThinkingLevel } from "../../../../src/client/index";
import type { PanelProps } from "./panel";
import { EmptyState, PanelLayout, PanelSection } from "./panel-layout";

export function SettingsPanel({ controller }: PanelProps) {
	const { models, thinkingLevels, session, ready, memory, hasToken } = controller.state;
	const model = controller.model();
	const current = model ? `${model.provider}/${model.id}` : "";
	const onlyOff = thinkingLevels.length <= 1;
	const thinkingReason = !model ? "Choose a model first." : `${model.name ?? model.id} does not think: it supports no level but off.`;
	return (
		<PanelLayout title="Settings">
			<PanelSection title="Agent">
				{models.length === 0 ? (
					<EmptyState title="No models available">
						<span>No provider has credentials yet. The card in the conversation says how to set one up.</span>
					</EmptyState>
				) : (
					<label class="field">
						<span>Model</span>
						<select
							name="model"
							value={current}
							disabled={!ready}
							onChange={(e) => {
								const [provider, ...id] = (e.target as HTMLSelectElement).value.split("/");
								void controller.setModel(provider!, id.join("/"));
							}}
						>
							{!current && <option value="">Choose a model…</option>}
							{models.map((m) => (
								<option key={`${m.provider}/${m.id}`} value={`${m.provider}/${m.id}`}>
									{m.provider}/{m.name ?? m.id}
								</option>
							))}
						</select>
					</label>
				)}
				<label class="field">
					<span>Thinking level</span>
					<select
						name="thinking"
						value={session?.thinkingLevel ?? "off"}
						disabled={!ready || onlyOff}
						aria-describedby={onlyOff ? "thinking-reason" : undefined}
						onChange={(e) => void controller.setThinkingLevel((e.target as HTMLSelectElement).value as ThinkingLevel)}
					>
						{(thinkingLevels.length ? thinkingLevels : ["off"]).map((level) => (
							<option key={level} value={level}>
								{level}
							</option>
						))}
					</select>
					{onlyOff && (
						<span id="thinking-reason" class="hint">
							{thinkingReason}
						</span>
					)}
				</label>
			</PanelSection>
			{memory && (
				<PanelSection title="Memory">
					<label class="field">
						<span>Backend</span>
						<select
							name="memory"
							value={memory.backend}
							disabled={!ready}
							aria-describedby="memory-scope"
							onChange={(e) => void controller.setMemoryBackend((e.target as HTMLSelectElement).value as MemoryView["backend"])}
						>
							<option value="local">local notes</option>
							<option value="remote" disabled={!memory.remoteApiUrl}>
								remote server{memory.remoteApiUrl ? "" : " (not configured)"}
							</option>
							<option value="off">off</option>
						</select>
					</label>
					<p class="hint memory-tools">
						{memory.activeTools.length ? `Tools: ${memory.activeTools.join(", ")}` : "No memory tools"}
						{memory.shared ? " · applies to every top-level session" : " · this session only"}
					</p>
					<p id="memory-scope" class="hint memory-scope">
						A change here lasts for this run of the service only: it is not saved, and skiff starts with the backend of its settings.json again.
					</p>
				</PanelSection>
			)}
			{hasToken && (
				<PanelSection title="Access">
					<p class="hint">An access token is saved in this tab (sessionStorage) and offered at every connect.</p>
					<div>
						<button type="button" class="small" onClick={() => controller.forgetToken()}>
							Forget the token
						</button>
					</div>
				</PanelSection>
			)}
		</PanelLayout>
	);
}
