/**
 * Where the service looks for models. Until a prompt has failed for want of a model, the page knows only the
 * default agent directory; the service's error text then names the exact files, which replace the defaults.
 */

export interface SetupPaths {
	auth: string;
	models: string;
	/** The paths came from the service itself (not the defaults). */
	exact: boolean;
}

export const DEFAULT_SETUP_PATHS: SetupPaths = { auth: "~/.skiff/agent/auth.json", models: "~/.skiff/agent/models.json", exact: false };

/** The auth.json and models.json paths named in a "no model is configured" error, else the defaults. */
export function setupPathsFrom(message: string): SetupPaths {
	const auth = /(\S+auth\.json)\b/.exec(message)?.[1];
	const models = /(\S+models\.json)\b/.exec(message)?.[1];
	if (!auth && !models) return DEFAULT_SETUP_PATHS;
	return { auth: auth ?? DEFAULT_SETUP_PATHS.auth, models: models ?? DEFAULT_SETUP_PATHS.models, exact: true };
}
