/** Where remote memory lives for a working directory, by scoping mode (spec: Remote namespaces). */
import { projectAnchor, projectLabel } from "./project-identity.js";
import type { RemoteScope } from "./remote-client.js";
import type { MemorySettings } from "./settings.js";

export function remoteScope(settings: MemorySettings, cwd: string): RemoteScope {
	const base = settings.remoteBankIdPrefix ? `${settings.remoteBankIdPrefix}-${settings.remoteBankId}` : settings.remoteBankId;
	switch (settings.remoteScoping) {
		case "global":
			return { bank: base };
		case "per-project":
			return { bank: `${base}-${projectLabel(projectAnchor(cwd))}` };
		case "per-project-tagged":
			return { bank: base, tags: [`project:${projectLabel(projectAnchor(cwd))}`] };
	}
}
