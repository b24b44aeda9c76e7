/**
 * Made-up credentials of every shape src/shared/redact.ts knows (none was ever valid), as text that carries
 * them, with the part of each that must never be seen: the tests that stream them in pieces (unit, service,
 * page, stress) check that no 8 characters in a row of that part ever show.
 */
import { Prng } from "./prng.js";

export interface SecretShape {
	name: string;
	/** The secret as it appears in text (with its name, scheme or PEM lines where the shape has them). */
	text: string;
	/** What must never be seen of it (the key material, not its well-known prefix). */
	body: string;
}

const PEM_BODY = [
	"MIIEpAIBAAKCAQEAx7Qm3vTzKp9Lw2sRbYc4NfHdUe8GjXoVa1iZl5yPqWnStMkC",
	"Hr6Dg0BuJ2fLxAe9OvYiTcWmNp3QsKz7R4hVbE1jFlGwXoUd8yMtCnIqSa5Pr2Ze",
	"kT9b+/Xc3Vm7NwQ1pRgHsLfDj0aYuEoBi6Zl4KtWn8MxSvJq2UrCy5Oe==",
].join("\n");

function pem(label: string): SecretShape {
	return { name: `PEM ${label || "PKCS#8"}`, text: `-----BEGIN ${label}PRIVATE KEY-----\n${PEM_BODY}\n-----END ${label}PRIVATE KEY-----`, body: PEM_BODY };
}

function token(name: string, prefix: string, body: string): SecretShape {
	return { name, text: `${prefix}${body}`, body };
}

export const JWT_BODY = "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

export const SECRET_SHAPES: readonly SecretShape[] = [
	pem("RSA "),
	pem("OPENSSH "),
	pem(""),
	pem("ENCRYPTED "),
	token("Anthropic key", "sk-ant-api03-", "Zq8vK2mXp4Lr7Tn1Wb5Yc9Hd3Fg6Js0AeUo"),
	token("OpenAI project key", "sk-proj-", "4fG7hJ2kL9mN3pQ6rS8tV1wX5yZ0aBcD"),
	token("OpenAI key", "sk-", "Hq3Wm8Zr5Tk1Vx7Nb2Lp9Jd4Fc6Gs0Yt"),
	token("Stripe publishable key", "pk-", "live51HqWm8Zr5Tk1Vx7Nb2Lp9"),
	token("Stripe restricted key", "rk-", "live7Nb2Lp9Jd4Fc6Gs0YtQm3W"),
	token("GitHub personal token", "ghp_", "R8tY2uI5oP1aS4dF7gH0jK3lZ6xC9vB2nM5q"),
	token("GitHub OAuth token", "gho_", "Q2wE5rT8yU1iO4pA7sD0fG3hJ6kL9zX2cV5b"),
	token("GitHub server token", "ghs_", "N4mB7vC0xZ3lK6jH9gF2dS5aP8oI1uY4tR7e"),
	token("GitHub fine-grained token", "github_pat_", "11ABCDEFG0aBcDeFgHiJkLmN_oPqRsTuVwXyZ012345"),
	token("Slack bot token", "xoxb-", "2048736154-8273645510-Kq9Wm3Zr5Tk1Vx7N"),
	token("Slack user token", "xoxp-", "5512873645-9182736450-Lp9Jd4Fc6Gs0YtQm"),
	token("AWS access key id", "AKIA", "QW3ERT7YUI5OPAS2"),
	token("AWS temporary key id", "ASIA", "ZX8CVB4NML1KJH6G"),
	token("Google API key", "AIza", "SyD4fG7hJ2kL9mN3pQ6rS8tV1wX5yZ0aBcDe"),
	token("npm token", "npm_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
	token("Hugging Face token", "hf_", "QwErTyUiOp1234567890AsDfGhJkLz"),
	token("JWT", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.", JWT_BODY),
	token("bearer token", "Authorization: Bearer ", "c2VjcmV0LWJlYXJlci12YWx1ZS0xMjM0NQ"),
	token("token= pair", "https://example.com/cb?token=", "Vb8Nm2Qw5Er7Ty1Ui3"),
	{ name: "api_key JSON pair", text: '{"api_key": "Pz4Xc7Vb1Nm9Qw3Er6"}', body: "Pz4Xc7Vb1Nm9Qw3Er6" },
	token("password pair", "password: ", "hunter2-Correct-Horse-Battery"),
	token("secret pair", "client_secret=", "Lk8Jh5Gf2Ds9Ap6Ow3Ie"),
];

/** The 8-character runs of each shape's body, looked up rather than searched for. */
const RUNS = new WeakMap<SecretShape, Set<string>>();

function runsOf(shape: SecretShape): Set<string> {
	let runs = RUNS.get(shape);
	if (!runs) {
		runs = new Set();
		for (const line of shape.body.split("\n")) for (let i = 0; i + LEAK_CHARS <= line.length; i++) runs.add(line.slice(i, i + LEAK_CHARS));
		RUNS.set(shape, runs);
	}
	return runs;
}

/** How many characters of a secret's body in a row count as showing it. */
export const LEAK_CHARS = 8;

/** Where `shape` first shows LEAK_CHARS characters in a row of its body in `text`, or -1. */
export function bodyLeakAt(text: string, shape: SecretShape): number {
	const runs = runsOf(shape);
	for (let i = 0; i + LEAK_CHARS <= text.length; i++) if (runs.has(text.slice(i, i + LEAK_CHARS))) return i;
	return -1;
}

/** The names of the shapes that show in `text` (8 characters in a row of a body), each with what surrounds it. */
export function leaks(text: string, shapes: readonly SecretShape[] = SECRET_SHAPES): string[] {
	const found: string[] = [];
	for (const shape of shapes) {
		const at = bodyLeakAt(text, shape);
		if (at >= 0) found.push(`${shape.name}: …${JSON.stringify(text.slice(Math.max(0, at - 20), at + 30))}…`);
	}
	return found;
}

/** Surroundings a secret appears in: prose, a code span, a quoted JSON value, a line of its own, a list. */
export const CONTEXTS: ReadonlyArray<(secret: string) => string> = [
	(s) => `Here it is: ${s} — keep it safe.`,
	(s) => `Use \`${s}\` in the config.`,
	(s) => `{"value": "${s}", "next": 1}`,
	(s) => `first line\n${s}\nlast line`,
	(s) => `- one\n- ${s}\n- three`,
	(s) => s,
];

/** One text per shape and context, for a model or a command to stream. */
export function secretTexts(prng?: Prng): Array<{ shape: SecretShape; text: string }> {
	const out: Array<{ shape: SecretShape; text: string }> = [];
	for (const shape of SECRET_SHAPES) {
		const contexts = prng ? [prng.pick(CONTEXTS)] : CONTEXTS;
		for (const context of contexts) out.push({ shape, text: context(shape.text) });
	}
	return out;
}

/**
 * A shell command that prints `first`, waits past pi's update throttle (100 ms), then prints `second` and a
 * line break: two writes, two updates. It carries them in base64, so that only its output holds the secret.
 */
export function printInTwoWrites(first: string, second: string): string {
	const write = (text: string) => `printf %s ${Buffer.from(text).toString("base64")} | base64 -d`;
	return `${write(first)}; sleep 0.4; ${write(second)}; echo`;
}

/** Every secret in a surrounding of its own, as a reply to stream. */
export const SECRETS_REPLY = SECRET_SHAPES.map((shape, n) => CONTEXTS[n % CONTEXTS.length]!(shape.text)).join("\n\n");
/** Every secret that fits on one line, on one line (THINK, RUN and REPLY take one line). */
export const SECRETS_LINE = SECRET_SHAPES.filter((shape) => !shape.text.includes("\n"))
	.map((shape) => shape.text)
	.join(" and ");
