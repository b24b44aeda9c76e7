/**
 * Loader hook (prebundled-register.mjs registers it): a bundled package's specifier resolves to its bundle, when
 * it would have resolved to the installed package the bundle was made from (not to another copy of it nested
 * under some dependency); every other specifier goes on to the next hook (tsx's) as it came.
 */
/** @type {{ bundles: Record<string, string>, roots: string[] }} */
let known = { bundles: {}, roots: [] };

export function initialize(data) {
	known = data;
}

export async function resolve(specifier, context, next) {
	const resolved = await next(specifier, context);
	const bundle = known.bundles[specifier];
	return bundle && known.roots.some((root) => resolved.url.startsWith(root)) ? { url: bundle, format: "module", shortCircuit: true } : resolved;
}
