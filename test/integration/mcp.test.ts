/**
 * MCP servers as the agent's tools, through the real skiff (bin/skiff, the bundle) and the fake model: a stdio
 * server and a Streamable HTTP one written with the SDK (test/support/mcp/), and an independently written one
 * (@modelcontextprotocol/server-filesystem). The model calls their tools end to end: arguments, an image, a
 * failing tool, a slow one past its deadline (cancelled), 50 MB of output, a list that changes, a crash and
 * the restart. Bad servers (a missing command, one that exits at once, one that writes garbage, one that never
 * answers initialize, an HTTP server that answers 401 or redirects elsewhere) are each reported naming the
 * server while the others work. Secrets never show in mcp_list, settings_inspect, errors or the log.
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server.js";
import { REPO_ROOT, type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { until } from "../support/until.js";
import { TestClient } from "../support/ws-client.js";

const SERVER = join(REPO_ROOT, "test", "support", "mcp", "stdio-server.mjs");
const FILESYSTEM = join(REPO_ROOT, "node_modules", ".bin", "mcp-server-filesystem");
const SECRET = "sk-mcptestsecret0123456789abcdef";
const HTTP_TOKEN = "http-token-5e5e5e5e5e";

let model: FakeOpenAiServer;
let http: McpHttpServer;
let skiff: SkiffProcess;
let client: TestClient;
let sessionId: string;
let log: string;
let files: string;
let loads: string;
let agentDir: string;
let mcpServers: Record<string, Record<string, unknown>>;

const node = (...args: string[]) => ({ command: process.execPath, args: [SERVER, ...args] });

before(async () => {
	model = await startFakeOpenAi();
	http = await startMcpHttpServer(HTTP_TOKEN);
	agentDir = tempDir();
	const cwd = tempDir();
	files = tempDir();
	writeFileSync(join(files, "hello.txt"), "hello from the filesystem server\n");
	log = join(tempDir(), "mcp.log");
	writeFileSync(log, "");
	writeFakeModelsJson(agentDir, model.url);
	mkdirSync(join(agentDir, "agents"));
	writeFileSync(join(agentDir, "agents", "webonly.md"), "---\nname: webonly\ndescription: Reads and uses the web server\ntools: [read, mcp__web]\n---\nYou use the web.\n");
	writeFileSync(join(agentDir, "agents", "reader.md"), "---\nname: reader\ndescription: Reads only\ntools: [read]\n---\nYou read.\n");
	loads = join(tempDir(), "loads.txt");
	writeFileSync(loads, "");
	mcpServers = {
		test: { ...node(), env: { MCP_TEST_LOG: log, MCP_SECRET: "$MCP_SECRET_VALUE", API_KEY: "literal-api-key-value" }, timeoutMs: 1500 },
		web: { url: http.url("/auth"), headers: { Authorization: "Bearer ${MCP_HTTP_TOKEN}" } },
		fs: { command: FILESYSTEM, args: [files] },
		garbage: node("--garbage"),
		gone: { command: "/nonexistent/mcp-server" },
		quick: node("--exit-now"),
		mute: { ...node("--no-init"), env: { MCP_TEST_LOG: log }, startTimeoutMs: 1000 },
		denied: { url: http.url("/auth"), headers: { Authorization: "Bearer wrong-token-value" } },
		moved: { url: http.url("/redirect"), headers: { Authorization: "Bearer ${MCP_HTTP_TOKEN}" } },
		legacy: { url: http.url("/legacy") },
		off: { ...node(), enabled: false },
		tree: { ...node("--grandchild"), env: { MCP_TEST_LOG: log } },
		// The 100 MB output, with the default deadline: under `test`'s 1.5 s one it was a race against the machine's load.
		bulk: node(),
	};
	writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ mcpServers }, null, 2));
	skiff = await startSkiff({
		agentDir,
		cwd,
		args: ["--model", "fake/fake-model"],
		env: {
			MCP_SECRET_VALUE: SECRET,
			MCP_HTTP_TOKEN: HTTP_TOKEN,
			// Records the SDK's modules as skiff requires them (mcp-startup.test.ts checks none are without servers).
			NODE_OPTIONS: `--require ${join(REPO_ROOT, "test", "support", "mcp", "record-loads.cjs")}`,
			MCP_LOADS_FILE: loads,
		},
	});
	client = await TestClient.connect(skiff.wsUrl);
	sessionId = await client.newSession();
	// Servers start in the background as the session opens: some fail before it is loaded to hear of it.
	for (const deadline = Date.now() + 20_000; ; ) {
		const states = new Map([...(await list())].map(([name, server]) => [name, server.state]));
		const ready = ["test", "web", "fs", "garbage", "tree", "legacy", "bulk"].every((name) => states.get(name) === "ready");
		if (ready && ["gone", "quick", "mute", "denied", "moved"].every((n) => states.get(n) === "failed")) break;
		if (Date.now() > deadline) assert.fail(`every server started or failed: ${JSON.stringify([...states])}\n${skiff.stderr()}`);
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
});

after(async () => {
	client?.close();
	await skiff?.stop();
	await http?.close();
	await model?.close();
});

async function list(): Promise<Map<string, any>> {
	const { servers } = await client.ok({ type: "mcp_list" });
	return new Map(servers.map((s: any) => [s.name, s]));
}

/** The tool_execution_end of a turn that calls one tool. */
async function callTool(name: string, args: unknown): Promise<any> {
	const events = await client.turn(sessionId, `CALL ${name} ${JSON.stringify(args)}\nAFTER_TOOL done.`, 30_000);
	const end = events.find((e) => e.type === "tool_execution_end");
	assert.ok(end, `the tool ${name} ran: ${JSON.stringify(events.map((e) => e.type))}`);
	return end;
}

const textOf = (end: any) => end.result.content.filter((c: any) => c.type === "text").map((c: any) => c.text).join("\n");

test("mcp_list shows every server's state, tools and errors, each naming what went wrong, with secrets masked", async () => {
	const servers = await list();
	const testServer = servers.get("test")!;
	assert.equal(testServer.transport, "stdio");
	const names = testServer.tools.map((t: any) => t.name);
	assert.ok(names.includes("mcp__test__echo") && names.includes("mcp__test__image"), names.join(", "));
	assert.ok(!names.includes("mcp__test__bad_schema"), "a schema pi cannot take is left out");
	assert.ok(names.includes("mcp__test__dotted_name_x"), "an unsafe name is mapped");
	assert.ok(testServer.warnings.some((w: string) => /"bad_schema" left out: its input schema has type "string"/.test(w)), testServer.warnings.join("\n"));
	assert.ok(testServer.warnings.some((w: string) => /"dotted.name\/x" is offered as mcp__test__dotted_name_x/.test(w)));
	assert.equal(testServer.config.env.MCP_SECRET, "$MCP_SECRET_VALUE", "a reference shows as written");
	assert.equal(testServer.config.env.API_KEY, "[REDACTED]", "a literal under a secret-looking name is masked");
	assert.equal(servers.get("web")!.transport, "streamable-http");
	assert.equal(servers.get("web")!.config.headers.Authorization, "Bearer ${MCP_HTTP_TOKEN}");
	assert.ok(servers.get("fs")!.tools.some((t: any) => t.name === "mcp__fs__read_text_file" || t.name === "mcp__fs__read_file"));
	assert.equal(servers.get("garbage")!.state, "ready", "garbage on stdout is skipped");
	assert.match(servers.get("garbage")!.warnings.join("\n"), /not JSON-RPC/);
	assert.match(servers.get("gone")!.lastError, /command not found: \/nonexistent\/mcp-server/);
	assert.match(servers.get("quick")!.lastError, /exited with code 2.*cannot open the database/s);
	assert.match(servers.get("mute")!.lastError, /did not answer initialize within 1000 ms/);
	assert.match(servers.get("denied")!.lastError, /401/);
	assert.equal(servers.get("denied")!.config.headers.Authorization, "[REDACTED]");
	assert.match(servers.get("moved")!.lastError, /[Rr]edirect/);
	assert.equal(servers.get("off")!.state, "disabled");
	const everything = JSON.stringify([...servers.values()]) + skiff.stderr();
	for (const secret of [SECRET, HTTP_TOKEN, "literal-api-key-value", "wrong-token-value"]) assert.ok(!everything.includes(secret), `${secret} never shows`);
	for (const name of ["gone", "quick", "mute", "denied", "moved"]) assert.match(skiff.stderr(), new RegExp(`mcp: server ${name} failed: `));
});

test("the SDK was loaded from node_modules on first use, not from the bundle", () => {
	assert.match(readFileSync(loads, "utf8"), /^@modelcontextprotocol\/sdk\/client\/index\.js$/m);
});

test("the redirect was not followed: nothing reached the other origin, so no token went there", () => {
	assert.ok(http.seen.some((r) => r.path === "/redirect"));
	assert.ok(!http.seen.some((r) => r.host.startsWith("localhost")), JSON.stringify(http.seen));
});

test("settings_inspect shows mcpServers with secrets masked, and refuses a value that holds the mask", async () => {
	const inspection = await client.ok({ type: "settings_inspect", sessionId });
	const entry = inspection.values.find((v: any) => v.key === "mcpServers");
	assert.ok(entry);
	assert.ok(!JSON.stringify(entry).includes("literal-api-key-value"));
	assert.equal(entry.effectiveValue.test.env.API_KEY, "[REDACTED]");
	const draft = await client.ok({ type: "settings_open_draft", scope: "global", sessionId });
	const refused = await client.request({ type: "settings_set", draftId: draft.draftId, key: "mcpServers", value: entry.effectiveValue });
	assert.equal(refused.success, false);
	assert.match(refused.error!, /mask views show for a secret/);
	await client.ok({ type: "settings_cancel", draftId: draft.draftId });
});

test("the model calls a stdio server's tool with arguments, and the server's environment holds the resolved $VAR", async () => {
	const end = await callTool("mcp__test__add", { a: 2, b: 40 });
	assert.equal(end.isError, false);
	assert.equal(textOf(end), "42");
	assert.equal(end.result.details.mcpServer, "test");
	const env = await callTool("mcp__test__env", { name: "MCP_SECRET" });
	assert.equal(textOf(env), `MCP_SECRET=${SECRET}`, "the reference was resolved for the server");
	const inherited = await callTool("mcp__test__env", { name: "MCP_HTTP_TOKEN" });
	assert.equal(textOf(inherited), "MCP_HTTP_TOKEN=(unset)", "skiff's own environment is not passed on");
});

test("an image result reaches the model as an image; an HTTP server's tool works the same", async () => {
	const end = await callTool("mcp__test__image", {});
	assert.deepEqual(
		end.result.content.map((c: any) => c.type),
		["text", "image"],
	);
	const request = model.requests.at(-1)!.body;
	assert.ok(JSON.stringify(request.messages).includes("image_url") || JSON.stringify(request.messages).includes("data:image/png"), "the image went to the model");
	const web = await callTool("mcp__web__echo", { text: "over http" });
	assert.equal(textOf(web), "echo: over http");
	assert.equal(web.result.details.mcpServer, "web");
	assert.equal((await list()).get("legacy")!.transport, "sse", "a server of the older protocol is reached over SSE");
	assert.equal(textOf(await callTool("mcp__legacy__add", { a: 1, b: 2 })), "3");
	const big = await callTool("mcp__web__big", { mb: 20 });
	assert.equal(big.isError, true);
	assert.match(textOf(big), /MCP server web: big .*more than 16 MiB/);
});

test("a failing tool is a tool error with the server's message; a slow one is cancelled at its deadline", async () => {
	const failed = await callTool("mcp__test__fail", {});
	assert.equal(failed.isError, true);
	assert.match(textOf(failed), /MCP server test: fail failed: the database is down/);
	const slow = await callTool("mcp__test__slow", { ms: 10_000 });
	assert.equal(slow.isError, true);
	assert.match(textOf(slow), /did not finish slow within 1500 ms \(the request was cancelled\)/);
	await until(() => readFileSync(log, "utf8").includes("cancelled slow 10000"), "the server heard the cancellation");
});

test("100 MB of tool output is cut to the tool-output cap with a note, and skiff's memory stays bounded", async () => {
	const peakBefore = peakRss(skiff.child.pid!);
	const end = await callTool("mcp__bulk__big", { mb: 100 });
	assert.equal(end.isError, false);
	const text = textOf(end);
	assert.ok(Buffer.byteLength(text) <= 32 * 1024, `cut to the cap: ${Buffer.byteLength(text)}`);
	assert.match(text, /output truncated/);
	assert.match(skiff.stderr(), /mcp: server bulk answered with a message of 100\.0 MB/);
	// At most one message is held whole (16 MiB) before a longer one is cut: the peak grows by about that, plus
	// the pipe's chunks not yet collected, however long the output (here 95 MiB).
	const grown = peakRss(skiff.child.pid!) - peakBefore;
	assert.ok(grown < 60 * 1024 * 1024, `the peak grew by ${Math.round(grown / 1024 / 1024)} MiB: the output is not held`);
	assert.equal(textOf(await callTool("mcp__test__echo", { text: "still here" })), "echo: still here");
});

test("job children get the MCP tools their definition allows: all without a tools list, a server's by mcp__<server>, none otherwise", async () => {
	// Each job from a session of its own: a job wakes its parent when it ends.
	const isChild = (marker: string) => (r: { body: any }) =>
		r.body.messages.some((m: any) => m.role === "user" && (typeof m.content === "string" ? m.content : m.content?.[0]?.text ?? "").startsWith(marker));
	const toolsOf = async (marker: string, agent?: string) => {
		const task = `${marker}\nCALL mcp__web__echo {"text":"from a child"}`;
		const parent = await client.newSession();
		await client.turn(parent, `CALL task ${JSON.stringify({ task, ...(agent ? { agent } : {}) })}\nAFTER_TOOL started.`);
		await until(() => model.requests.some(isChild(marker)), `the child ${marker} asked the model`);
		const request = model.requests.find(isChild(marker))!;
		return (request.body.tools ?? []).map((t: any) => t.function.name).filter((n: string) => n.startsWith("mcp__"));
	};
	const all = await toolsOf("CHILD-MCP-ALL");
	assert.ok(all.includes("mcp__test__echo") && all.includes("mcp__web__echo"), all.join(", "));
	const web = await toolsOf("CHILD-MCP-WEB", "webonly");
	assert.ok(web.length > 0 && web.every((n: string) => n.startsWith("mcp__web__")), web.join(", "));
	assert.deepEqual(await toolsOf("CHILD-MCP-NONE", "reader"), []);
	await until(() => client.events.some((e) => e.type === "job_updated" && e.job.agent === "webonly" && e.job.status === "completed"), "the webonly job ended");
	const done = client.events.find((e) => e.type === "job_updated" && e.job.agent === "webonly")!.job;
	const transcript = await client.ok({ type: "job_transcript", jobId: done.id });
	const result = transcript.messages.find((m: any) => m.role === "toolResult" && m.toolName === "mcp__web__echo");
	assert.equal(result?.content[0].text, "echo: from a child");
});

test("a side chat gets no MCP tools: its model is offered none, while its session's is", async () => {
	const session = await client.newSession();
	await client.turn(session, "REPLY MAIN-MCP-TOOLS");
	const mainRequest = [...model.requests].reverse().find((r) => JSON.stringify(r.body.messages).includes("MAIN-MCP-TOOLS"))!;
	const mcpTools = (r: { body: any }) => (r.body.tools ?? []).map((t: any) => t.function.name).filter((n: string) => n.startsWith("mcp__"));
	assert.ok(mcpTools(mainRequest).includes("mcp__test__echo"), "the session itself has them");
	await client.ok({ type: "side_chat_new", sessionId: session, name: "aside" });
	const from = client.events.length;
	await client.ok({ type: "side_chat_prompt", sessionId: session, name: "aside", message: "SIDE-MCP-TOOLS\nREPLY no tools here" });
	await client.waitForEvent((e) => e.type === "side_chat_event" && e.sessionId === session && e.event.type === "agent_end", 20_000, from);
	const sideRequest = [...model.requests].reverse().find((r) => JSON.stringify(r.body.messages).includes("SIDE-MCP-TOOLS"))!;
	assert.deepEqual(mcpTools(sideRequest), []);
	assert.ok((sideRequest.body.tools ?? []).some((t: any) => t.function.name === "peek_main"), "its own tools are there");
});

test("the independently written filesystem server works end to end", async () => {
	const servers = await list();
	const read = servers.get("fs")!.tools.find((t: any) => t.name === "mcp__fs__read_text_file" || t.name === "mcp__fs__read_file").name;
	const end = await callTool(read, { path: join(files, "hello.txt") });
	assert.equal(end.isError, false, textOf(end));
	assert.match(textOf(end), /hello from the filesystem server/);
});

test("tools/list_changed refreshes the list: a new tool is offered from the next prompt", async () => {
	await callTool("mcp__test__grow", {});
	await until(() => client.events.some((e) => e.type === "mcp_updated" && e.server.name === "test" && e.server.tools.some((t: any) => t.name === "mcp__test__extra")), "the new list");
	const end = await callTool("mcp__test__extra", {});
	assert.equal(textOf(end), "extra works");
});

test("a server that crashes is restarted with backoff and says so; mcp_restart restarts one by name", async () => {
	const pid = (await list()).get("test")!.pid;
	await callTool("mcp__test__crash", {});
	await until(() => /mcp: server test stopped \(exited with code 3\); restarting in 1000 ms/.test(skiff.stderr()), "the restart was announced");
	await until(() => client.events.some((e) => e.type === "mcp_updated" && e.server.name === "test" && e.server.state === "ready" && e.server.pid !== pid), "restarted");
	assert.equal(textOf(await callTool("mcp__test__echo", { text: "back" })), "echo: back");
	const restarted = await client.ok({ type: "mcp_restart", name: "quick" }, 20_000);
	assert.equal(restarted.server.state, "failed");
	const unknown = await client.request({ type: "mcp_restart", name: "nope" });
	assert.equal(unknown.success, false);
	assert.match(unknown.error!, /No MCP server named "nope"/);
});

test("doctor checks each server of the session's folder", async () => {
	const doctor = await client.ok({ type: "doctor", sessionId }, 30_000);
	const check = doctor.checks.find((c: any) => c.id === "mcp");
	assert.ok(check, JSON.stringify(doctor.checks.map((c: any) => c.id)));
	assert.equal(check.ok, false);
	assert.match(check.detail, /test: ready/);
	assert.match(check.detail, /gone: failed \(could not start: command not found/);
	assert.ok(!check.detail.includes(HTTP_TOKEN) && !check.detail.includes("wrong-token-value"));
});

test("a project's servers start only once the project is trusted, and it is said when they are not", async () => {
	const project = tempDir();
	mkdirSync(join(project, ".skiff"));
	writeFileSync(join(project, ".skiff", "settings.json"), JSON.stringify({ mcpServers: { proj: node() } }));
	const { sessionId: inProject } = await client.ok({ type: "new_session", cwd: project });
	await until(() => /configures MCP server proj; not started: the project is not trusted/.test(skiff.stderr()), "the warning");
	// Listed, as skipped, saying why; not started, and not restartable until the project is trusted.
	const skipped = (await client.ok({ type: "mcp_list" })).servers.find((s: any) => s.name === "proj");
	assert.equal(skipped?.state, "skipped", JSON.stringify(skipped));
	assert.equal(skipped.scope, "project");
	assert.match(skipped.lastError, /not started: the project is not trusted/);
	assert.deepEqual(skipped.config.args, [SERVER]);
	assert.ok(client.events.some((e) => e.type === "mcp_updated" && e.server.name === "proj" && e.server.state === "skipped"), "pages heard of it");
	const refused = await client.request({ type: "mcp_restart", name: "proj", project: skipped.project });
	assert.equal(refused.code, "invalid_command");
	assert.match(refused.error!, /MCP server proj: not started: the project is not trusted/);
	await client.ok({ type: "project_trust", trusted: true, sessionId: inProject });
	await client.turn(inProject, "hello"); // the session needs its tools again: the project's server starts
	for (const deadline = Date.now() + 15_000; ; ) {
		const proj = [...(await list()).values()].find((s) => s.name === "proj");
		if (proj?.state === "ready") {
			assert.ok(!(await client.ok({ type: "mcp_list" })).servers.some((s: any) => s.name === "proj" && s.state === "skipped"), "no longer skipped");
			assert.equal(proj.scope, "project");
			break;
		}
		if (Date.now() > deadline) assert.fail(`the project's server started: ${JSON.stringify(proj)}`);
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	const events = await client.turn(inProject, `CALL mcp__proj__echo {"text":"from the project"}\nAFTER_TOOL done.`);
	assert.equal(textOf(events.find((e) => e.type === "tool_execution_end")), "echo: from the project");
});

test("a settings change reloads: a server enabled starts when needed, one removed stops, one changed restarts", async () => {
	const before = (await list()).get("test")!.pid;
	const { quick: _removed, ...rest } = mcpServers;
	const next = { ...rest, off: { ...mcpServers.off, enabled: true }, test: { ...mcpServers.test, timeoutMs: 5000 } };
	const draft = await client.ok({ type: "settings_open_draft", scope: "global", sessionId });
	await client.ok({ type: "settings_set", draftId: draft.draftId, key: "mcpServers", value: next });
	await client.ok({ type: "settings_apply", draftId: draft.draftId });
	await client.turn(sessionId, "hello");
	for (const deadline = Date.now() + 15_000; ; ) {
		const servers = await list();
		if (servers.get("off")?.state === "ready" && servers.get("test")?.state === "ready" && !servers.has("quick")) {
			assert.notEqual(servers.get("test")!.pid, before, "the changed server was restarted");
			break;
		}
		if (Date.now() > deadline) assert.fail(JSON.stringify([...servers].map(([n, s]) => [n, s.state])));
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	assert.match(skiff.stderr(), /mcp: server quick was removed from the settings; stopped/);
});

test("mcp_set_enabled disables and enables a server in its file, leaving the file's secrets as they were", async () => {
	const disabled = await client.ok({ type: "mcp_set_enabled", name: "garbage", enabled: false });
	assert.equal(disabled.server.state, "disabled");
	const file = readFileSync(join(agentDir, "settings.json"), "utf8");
	assert.equal(JSON.parse(file).mcpServers.garbage.enabled, false);
	assert.ok(file.includes("literal-api-key-value") && !file.includes("[REDACTED]"), "the other servers' values are untouched");
	const enabled = await client.ok({ type: "mcp_set_enabled", name: "garbage", enabled: true });
	assert.equal(enabled.server.enabled, true);
	await client.turn(sessionId, "hello");
	await until(() => client.events.some((e) => e.type === "mcp_updated" && e.server.name === "garbage" && e.server.state === "ready" && e.server.enabled), "enabled again");
	const unknown = await client.request({ type: "mcp_set_enabled", name: "nope", enabled: true });
	assert.match(unknown.error!, /No MCP server named "nope"/);
});

test("mcp_set_enabled twice at once (a switch clicked off and on): both are done, in order, and the file says the last", async () => {
	const [off, on] = await Promise.all([
		client.request({ type: "mcp_set_enabled", name: "garbage", enabled: false }),
		client.request({ type: "mcp_set_enabled", name: "garbage", enabled: true }),
	]);
	assert.equal(off.success, true, off.error);
	assert.equal(on.success, true, on.error);
	assert.equal(JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8")).mcpServers.garbage.enabled, true);
});

test("SIGTERM of skiff ends every server's process group: no process is left behind", async () => {
	const servers = await list();
	const groups = [...servers.values()].filter((s) => s.state === "ready" && s.pid !== undefined).map((s) => s.pid as number);
	assert.ok(groups.length >= 4, JSON.stringify(groups));
	const grandchild = Number(/grandchild (\d+)/.exec(readFileSync(log, "utf8"))![1]);
	assert.ok(alive(grandchild), "the server's own child runs");
	assert.deepEqual(membersOf(groups).length > 0, true);
	// One server is starting (it never answers initialize) when skiff is told to stop.
	const mutes = () => [...readFileSync(log, "utf8").matchAll(/^mute (\d+)$/gm)].map((m) => Number(m[1]));
	const before = mutes().length;
	client.sendRaw(JSON.stringify({ type: "mcp_restart", name: "mute", id: "restart-mute" })); // never answered: skiff stops first
	// Stopping the starting server (a 2 s grace before SIGKILL) and spawning another: slow when the machine is loaded.
	await until(() => mutes().length > before, "the server started again", 30_000);
	// Starting, unless its own 1 s start timeout already stopped it (a loaded machine): its group is checked either way.
	const starting = mutes().at(-1)!;
	groups.push(starting);
	assert.equal(await skiff.stop("SIGTERM"), 0);
	assert.deepEqual(membersOf(groups), [], "no process of any server's group is left");
	assert.equal(alive(grandchild), false, "the server's own child ended with it");
});

/** Whether a process exists (and is not a zombie). */
function alive(pid: number): boolean {
	try {
		return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
	} catch {
		return false;
	}
}

/** The live processes whose process group is one of `groups`. */
function membersOf(groups: number[]): number[] {
	const members: number[] = [];
	for (const entry of readdirSync("/proc")) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
			const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
			if (fields[0] !== "Z" && groups.includes(Number(fields[2]))) members.push(Number(entry));
		} catch {
			// it ended meanwhile
		}
	}
	return members;
}

/** The process's peak resident memory (VmHWM), in bytes. */
function peakRss(pid: number): number {
	const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
	return Number(match![1]) * 1024;
}

