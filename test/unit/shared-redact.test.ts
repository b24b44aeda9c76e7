import assert from "node:assert/strict";
import { test } from "node:test";
import { REDACTED, redactSecrets } from "../../src/shared/redact.js";

/** Made-up credentials of the real shapes (none of them was ever valid). */
const JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
const NPM_TOKEN = `npm_${"a1B2c3D4e5F6".repeat(3)}`;
const HF_TOKEN = `hf_${"QwErTyUiOp1234567890".repeat(2)}`;

test("credential shapes are masked, ordinary text is not", () => {
	const cases: Array<[string, string]> = [
		["key sk-ant-api03-abcdefghijklmnopqrstu end", `key ${REDACTED} end`],
		["ghp_abcdefghijklmnopqrstuvwxyz012345", REDACTED],
		["xoxb-1234567890-abcdef", REDACTED],
		["id AKIAABCDEFGHIJKLMNOP.", `id ${REDACTED}.`],
		["Authorization: Bearer abc.def-ghi_jkl", `Authorization: Bearer ${REDACTED}`],
		["url?token=abcd1234&x=1", `url?token=${REDACTED}&x=1`],
		['{"api_key": "zzzz9999"}', `{"api_key": "${REDACTED}"}`],
		["mytoken=abcdefgh", `mytoken=${REDACTED}`],
		["-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----", REDACTED],
		["-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA unterminated", REDACTED],
		[`session ${JWT}, expired`, `session ${REDACTED}, expired`],
		[`unsigned ${JWT.slice(0, JWT.lastIndexOf(".") + 1)} end`, `unsigned ${REDACTED} end`],
		[`//registry.npmjs.org/:_authToken ${NPM_TOKEN}`, `//registry.npmjs.org/:_authToken ${REDACTED}`],
		[`HF ${HF_TOKEN}.`, `HF ${REDACTED}.`],
		[`hf_${"A1b2C3d4E5".repeat(4)}`, REDACTED],
	];
	for (const [input, expected] of cases) assert.equal(redactSecrets(input), expected, input);
	const lookalikes = [
		"the task is done",
		"use a token to log in",
		"sk-short",
		"password reset flow",
		"keep an eye on the eyJ prefix",
		"eyJhbGciOiJIUzI1NiJ9 alone is only a header",
		"eyJhbGciOi.JIUz.I1NiJ9 has short parts",
		"file.name.ext and a.b.c",
		"hf_x",
		"hf_hub_download(repo_id)",
		`hf_${"a".repeat(29)}`,
		"npm_config_cache",
		`npm_${"a".repeat(35)}`,
		`npm_${"a".repeat(37)}`,
	];
	for (const plain of lookalikes) {
		assert.equal(redactSecrets(plain), plain);
	}
});
