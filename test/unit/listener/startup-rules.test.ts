import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parseAdvertisedOrigin } from "../../../src/listener/advertised-origin.js";
import { formatHostPort, isLoopbackHost, parseListenAddress } from "../../../src/listener/bind-address.js";
import { bannerLine, decideBindPolicy } from "../../../src/listener/bind-policy.js";
import { MAX_TOKEN_FILE_BYTES, readTokenFile, SHORT_TOKEN_CHARS, tokenFileWarnings, tokenStrengthWarnings } from "../../../src/listener/token-file.js";
import { tempDir } from "../../support/skiff-process.js";

test("listen addresses", () => {
	assert.deepEqual(parseListenAddress("127.0.0.1:8787"), { host: "127.0.0.1", port: 8787 });
	assert.deepEqual(parseListenAddress("[::1]:0"), { host: "::1", port: 0 });
	assert.deepEqual(parseListenAddress("localhost:1"), { host: "localhost", port: 1 });
	for (const bad of ["999.1.1.1:1", "127.0.0.1", ":8787", "::1:8787", "[::1]8787", "host:65536", "host:-1", "host:abc", " 127.0.0.1:1", "a b:1", "[zz]:1"]) {
		assert.throws(() => parseListenAddress(bad), new RegExp(`--listen "${bad.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}"`), bad);
	}
	const reasons: Array<[string, RegExp]> = [
		["nonsense", /the port is missing/],
		["127.0.0.1:99999", /the port 99999 is out of range/],
		["127.0.0.1:port", /the port "port" is not a number/],
		["::1:8787", /must be bracketed/],
		["[zz]:1", /"zz" is not an IPv6 address/],
	];
	for (const [bad, reason] of reasons) assert.throws(() => parseListenAddress(bad), reason, bad);
	for (const host of ["127.0.0.1", "127.9.9.9", "::1", "[::1]", "localhost", "::ffff:127.0.0.1", "::ffff:7f00:1", "0:0:0:0:0:0:0:1"]) {
		assert.equal(isLoopbackHost(host), true, host);
	}
	for (const host of ["0.0.0.0", "::", "192.168.1.2", "10.0.0.1", "example.com", "128.0.0.1"]) assert.equal(isLoopbackHost(host), false, host);
	assert.equal(formatHostPort("::1", 80), "[::1]:80");
	assert.equal(formatHostPort("127.0.0.1", 80), "127.0.0.1:80");
});

test("advertised origins are strict", () => {
	assert.equal(parseAdvertisedOrigin("http://Host.LAN:8787"), "http://host.lan:8787");
	assert.equal(parseAdvertisedOrigin("https://host:443/"), "https://host");
	assert.equal(parseAdvertisedOrigin("http://[::1]:8080"), "http://[::1]:8080");
	const cases: Array<[string, RegExp]> = [
		["ftp://host", /scheme/],
		["http://u:p@host", /credentials/],
		["http://user:pw@host:1", /credentials/],
		["http://host/path", /path/],
		["http://host:1/path", /path/],
		["http://host?x=1", /query/],
		["http://host/?x=1", /query/],
		["http://host#f", /fragment/],
		["http://host:0", /port/],
		["http://host:70000", /port/],
		["http://::1:80", /bracketed/],
		["http://", /host is missing/],
		["host:80", /absolute URL/],
		["http://a..b", /not a valid host/],
		["http://host:", /port is missing/],
		["http://ho st", /whitespace/],
	];
	for (const [text, pattern] of cases) {
		assert.throws(() => parseAdvertisedOrigin(text), (error: Error) => pattern.test(error.message) && error.message.startsWith(`--listen-advertised-origin "${text}"`), text);
	}
});

test("bind policy and banners", () => {
	const loop = decideBindPolicy({ host: "127.0.0.1", allowInsecureRemote: false, tokenConfigured: false });
	assert.ok(loop.ok);
	assert.equal(bannerLine("http://127.0.0.1:1", loop), "Control plane listening on http://127.0.0.1:1 (loopback only)");
	const locked = decideBindPolicy({ host: "::1", allowInsecureRemote: false, tokenConfigured: true });
	assert.ok(locked.ok);
	assert.equal(bannerLine("http://[::1]:1", locked), "Control plane listening on http://[::1]:1 (loopback, authentication enabled)");
	const refused = decideBindPolicy({ host: "0.0.0.0", allowInsecureRemote: false, tokenConfigured: true });
	assert.ok(!refused.ok && /0\.0\.0\.0/.test(refused.error) && /--listen-allow-insecure-remote/.test(refused.error));
	const remote = decideBindPolicy({ host: "0.0.0.0", allowInsecureRemote: true, tokenConfigured: false });
	assert.ok(remote.ok && remote.warnings.some((w) => /ANYONE/.test(w)) && remote.warnings.some((w) => /plaintext/.test(w)));
	const remoteToken = decideBindPolicy({ host: "192.168.1.5", allowInsecureRemote: true, tokenConfigured: true });
	assert.ok(remoteToken.ok && remoteToken.warnings.some((w) => /token travels in plaintext/.test(w)));
});

test("token files: trimmed; empty, spaced, oversized, non-file and unsendable tokens refused without echoing them", () => {
	const dir = tempDir();
	const file = join(dir, "token");
	writeFileSync(file, "\n  good-Token_1.~  \n", { mode: 0o600 });
	assert.equal(readTokenFile(file), "good-Token_1.~");
	assert.deepEqual(tokenFileWarnings(file), []);
	chmodSync(file, 0o644);
	assert.match(tokenFileWarnings(file)[0]!, /readable by other users \(mode 644\)/);
	chmodSync(file, 0o044);
	assert.match(tokenFileWarnings(file)[0]!, /\(mode 044\)/);
	const cases: Array<[string, RegExp]> = [
		["   \n\t", /empty/],
		["secret words", /whitespace/],
		["s3cr\u00e9t", /characters a browser cannot send/],
		["a/b=c", /characters a browser cannot send/],
		["x".repeat(MAX_TOKEN_FILE_BYTES + 1), /larger than/],
	];
	for (const [content, pattern] of cases) {
		writeFileSync(file, content);
		assert.throws(() => readTokenFile(file), (error: Error) => pattern.test(error.message) && !error.message.includes("secret") && !error.message.includes("s3cr"), content.slice(0, 20));
	}
	mkdirSync(join(dir, "folder"));
	assert.throws(() => readTokenFile(join(dir, "folder")), /not a regular file/);
	assert.throws(() => readTokenFile(join(dir, "absent")), /does not exist/);
});

// Issue 20: a throttled address's guesses are still checked (so the owner is never locked out), so only the
// token's own strength bounds guessing, and a short one is worth a warning.
test("a short token is warned about at start-up, without being echoed", () => {
	const short = "hunter2-short";
	const [warning, ...more] = tokenStrengthWarnings("/home/me/.skiff/token", short);
	assert.match(warning ?? "", /token in \/home\/me\/\.skiff\/token is shorter than 20 characters: .* can be guessed/);
	assert.deepEqual(more, []);
	assert.ok(!warning!.includes(short));
	assert.deepEqual(tokenStrengthWarnings("t", "x".repeat(SHORT_TOKEN_CHARS)), []);
});
