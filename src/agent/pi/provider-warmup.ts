/**
 * pi loads a model provider's SDK on the first request that needs it (about 100 ms for the OpenAI one on
 * this machine class). Loading the SDKs of the configured models in the background right after start-up
 * takes that cost off the user's first prompt.
 */
import type { PiEnvironment } from "./environment.js";

/** pi-ai's provider entry points, by the `api` of a model. */
const PROVIDER_MODULES: Record<string, () => Promise<unknown>> = {
	"openai-completions": () => import("@mariozechner/pi-ai/openai-completions"),
	"openai-responses": () => import("@mariozechner/pi-ai/openai-responses"),
	"anthropic-messages": () => import("@mariozechner/pi-ai/anthropic"),
	"google-generative-ai": () => import("@mariozechner/pi-ai/google"),
	"google-vertex": () => import("@mariozechner/pi-ai/google-vertex"),
	"mistral-conversations": () => import("@mariozechner/pi-ai/mistral"),
	"azure-openai-responses": () => import("@mariozechner/pi-ai/azure-openai-responses"),
	"openai-codex-responses": () => import("@mariozechner/pi-ai/openai-codex-responses"),
};

/**
 * How long after start-up the warm-up waits. Loading an SDK holds the event loop for tens of milliseconds (its
 * modules are read and run at once), so the clients that connect as the service comes up (a page opening, a
 * client's first get_state) are answered first. A prompt sent before then loads its provider itself, as pi does.
 */
const WARM_UP_DELAY_MS = 100;

/**
 * Soon starts loading the SDKs of the models that can run; never fails (a failure just means no warm-up). Which
 * models can run is found in the timer too: it asks every model of the registry for its credentials (about
 * 10 ms), which the commands waiting for the service to be ready would otherwise wait for. Resolves once the
 * warm-up is over (the service then gives back the memory start-up left behind: src/shared/idle-collection.ts).
 */
export function warmUpProviders(env: PiEnvironment): Promise<void> {
	const warmUp = async () => {
		const apis = new Set([env.requestedModel, ...env.modelRegistry.getAvailable()].flatMap((m) => (m ? [String(m.api)] : [])));
		if (apis.size === 0) return;
		const loads = [...apis].map((api) => PROVIDER_MODULES[api]?.().catch(() => undefined));
		await Promise.all([...loads, warmUpFetch()]);
	};
	return new Promise((resolve) => {
		setTimeout(() => void warmUp().catch(() => undefined).finally(resolve), WARM_UP_DELAY_MS).unref();
	});
}

/**
 * Node loads its fetch (undici) on first use, and sets up its stream and header machinery on the first request:
 * about 40 ms the first prompt would otherwise wait for. A data: URL goes through the same fetch, streams a body
 * and reads it, without a connection.
 */
async function warmUpFetch(): Promise<void> {
	try {
		const response = await fetch("data:application/json,{}", { method: "GET", headers: { accept: "application/json" } });
		await response.text();
	} catch {
		// no warm-up, the first prompt pays instead
	}
}
