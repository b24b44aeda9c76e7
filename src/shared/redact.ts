/**
 * Secret redaction for text the service sends or logs (errors, warnings), and for model text the web page
 * shows. It masks the credential shapes that most often leak: provider API keys, GitHub, Slack, npm and
 * Hugging Face tokens, AWS access keys, JWTs, bearer strings, `token=`-style pairs and PEM private key blocks.
 */

/** The one marker that stands where a secret was, in every view, error and log line. */
export const REDACTED = "[REDACTED]";

const SECRET_PATTERNS: RegExp[] = [
	/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
	/\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}/g, // OpenAI, Anthropic (sk-ant-...), Stripe-style keys
	/\bgh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub tokens
	/\bgithub_pat_[A-Za-z0-9_]{20,}/g,
	/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, // Slack tokens
	/\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, // AWS access key ids
	/\bAIza[A-Za-z0-9_-]{30,}/g, // Google API keys
	/\bnpm_[A-Za-z0-9]{36}\b/g, // npm access tokens
	/\bhf_[A-Za-z0-9]{30,}\b/g, // Hugging Face tokens
	/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g, // JWTs: base64url JSON header, payload, signature (empty when unsigned)
];

/** `Bearer <secret>` keeps its scheme word. */
const BEARER_PATTERN = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi;
/** `token=...`, `api_key: ...`, `"secret": "..."` keep their names (also inside longer names: `mytoken=`). */
const PAIR_PATTERN =
	/((?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|token|secret|password|passwd)["']?\s*[:=]\s*["']?)([^\s"'&,;]{4,})/gi;

/** `text` with every secret shape above replaced by REDACTED (names of `name=secret` pairs are kept). */
export function redactSecrets(text: string): string {
	let out = text;
	for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, REDACTED);
	out = out.replace(BEARER_PATTERN, `$1${REDACTED}`);
	out = out.replace(PAIR_PATTERN, (_m, name: string) => `${name}${REDACTED}`);
	return out;
}
