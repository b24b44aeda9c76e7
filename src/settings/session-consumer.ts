/**
 * How settings reach agent sessions: a new session reads them when it opens (see SettingsService.sessionSettings);
 * an applied change of a live key goes to each loaded session it reaches, at once.
 */
import { isDeepStrictEqual } from "node:util";
import type { SettingsConsumer } from "./consumer.js";
import type { SettingProblem } from "./effective-settings.js";
import { sessionRuntimeValues, sessionSettingDefinitions, sessionSettingsFrom } from "./session-settings.js";

/** The session settings a loaded session takes at once; the others matter only to sessions created later. */
const LIVE_KEYS = sessionSettingDefinitions.filter((d) => d.applies === "live").map((d) => d.key);

export function sessionSettingsConsumer(options: { log?: (line: string) => void } = {}): SettingsConsumer {
	return {
		validate: (values) => {
			const problems: SettingProblem[] = [];
			const provider = values.get("defaultProvider");
			const model = values.get("defaultModel");
			if ((provider === undefined) !== (model === undefined)) {
				const [set, missing] = provider === undefined ? ["defaultModel", "defaultProvider"] : ["defaultProvider", "defaultModel"];
				problems.push({ key: missing, message: `\`${set}\` needs \`${missing}\` too: a default model is a provider and a model id` });
			}
			return problems;
		},
		runtimeValues: (session) => sessionRuntimeValues(session.handle.state()),
		apply: async (change) => {
			for (const { session, before, after } of change.sessions) {
				const changed = new Map<string, unknown>();
				for (const key of LIVE_KEYS) {
					if (!isDeepStrictEqual(after.get(key), before.get(key))) changed.set(key, after.get(key));
				}
				if (changed.size === 0) continue;
				try {
					await session.handle.applySettings(sessionSettingsFrom(changed));
				} catch (error) {
					options.log?.(`settings: session ${session.id} could not take ${[...changed.keys()].join(", ")}: ${(error as Error).message}`);
				}
			}
		},
	};
}
