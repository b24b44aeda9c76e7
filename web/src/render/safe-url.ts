/**
 * Which URLs model output may use. Links: http, https, mailto, and same-origin relative paths (never
 * `//host`, which leaves the origin). Images: only base64 `data:` URIs of common raster types, so no
 * remote image can carry data out (SVG is excluded: it can hold script).
 */

const ALLOWED_SCHEMES = new Set(["http:", "https:", "mailto:"]);
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/bmp"]);

/** The href to use for a link, or undefined when it is not allowed. */
export function safeLinkHref(raw: string, origin = location.origin): string | undefined {
	const href = raw.trim();
	if (!href || /[\u0000-\u001f\u007f]/.test(href)) return undefined;
	const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(href);
	if (scheme) return ALLOWED_SCHEMES.has(`${scheme[1]!.toLowerCase()}:`) ? href : undefined;
	if (/^[\\/]{2}/.test(href) || href.startsWith("/\\") || href.startsWith("\\")) return undefined;
	try {
		const url = new URL(href, origin);
		return url.origin === origin ? href : undefined;
	} catch {
		return undefined;
	}
}

/** The src to use for an image, or undefined when it is not a whitelisted base64 data URI. */
export function safeImageSrc(raw: string): string | undefined {
	const match = /^data:([a-z]+\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/]+=*)$/i.exec(raw.trim());
	if (!match || !IMAGE_TYPES.has(match[1]!.toLowerCase())) return undefined;
	return raw.trim();
}
