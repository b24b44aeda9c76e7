/**
 * The tools of the test MCP servers, written with the official SDK's low-level Server (so a test can give a
 * tool any schema or name, even ones Skiff must refuse). Plain JavaScript: skiff starts the stdio server as a
 * child process, without a TypeScript loader, and the HTTP one runs inside the test.
 *
 * Tools: echo {text}, add {a, b}, image (text and a 1x1 PNG),
 * slow {ms} (records a cancellation it receives in $MCP_TEST_LOG), fail (an error result), big {mb} (that many
 * MB of text), crash (the process exits), grow (adds the tool `extra` and says the list changed), env {name}
 * (the value of one of its environment variables), plus two it must not offer as they are: `bad_schema` (an
 * input schema of type string) and `dotted.name/x` (characters tool names do not take).
 */
import { appendFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/** A 1x1 transparent PNG. */
export const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

const object = (properties = {}, required = []) => ({ type: "object", properties, required });

export function createTestServer(name = "skiff-test-server") {
	let grown = false;
	const server = new Server({ name, version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
	const log = (line) => {
		if (process.env.MCP_TEST_LOG) appendFileSync(process.env.MCP_TEST_LOG, `${line}\n`);
	};
	server.setRequestHandler(ListToolsRequestSchema, async () => ({
		tools: [
			{ name: "echo", description: "Echoes its text.", inputSchema: object({ text: { type: "string" } }, ["text"]) },
			{ name: "add", description: "Adds two numbers.", inputSchema: object({ a: { type: "number" }, b: { type: "number" } }, ["a", "b"]) },
			{ name: "image", description: "A tiny picture.", inputSchema: object() },
			{ name: "slow", description: "Waits.", inputSchema: object({ ms: { type: "integer" } }, ["ms"]) },
			{ name: "fail", description: "Always fails.", inputSchema: object() },
			{ name: "big", description: "Lots of text.", inputSchema: object({ mb: { type: "number" } }, ["mb"]) },
			{ name: "crash", description: "Exits the server.", inputSchema: object() },
			{ name: "grow", description: "Adds a tool.", inputSchema: object() },
			{ name: "env", description: "One of its environment variables.", inputSchema: object({ name: { type: "string" } }, ["name"]) },
			{ name: "bad_schema", description: "Takes a string.", inputSchema: { type: "string" } },
			{ name: "dotted.name/x", description: "A name with dots.", inputSchema: object() },
			...(grown ? [{ name: "extra", description: "Appeared later.", inputSchema: object() }] : []),
		],
	}));
	server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
		const args = request.params.arguments ?? {};
		const text = (t) => ({ content: [{ type: "text", text: t }] });
		switch (request.params.name) {
			case "echo":
				return text(`echo: ${args.text}`);
			case "add":
				return text(String(Number(args.a) + Number(args.b)));
			case "image":
				return { content: [{ type: "text", text: "a picture:" }, { type: "image", data: PNG_1X1, mimeType: "image/png" }] };
			case "slow":
				return await new Promise((resolve) => {
					const timer = setTimeout(() => resolve(text("done waiting")), Number(args.ms));
					extra.signal.addEventListener("abort", () => {
						clearTimeout(timer);
						log(`cancelled slow ${args.ms}`);
						resolve(text("cancelled"));
					});
				});
			case "fail":
				return { content: [{ type: "text", text: "the database is down" }], isError: true };
			case "big":
				return text("x".repeat(Math.round(Number(args.mb) * 1024 * 1024)));
			case "crash":
				setTimeout(() => process.exit(3), 10);
				return text("crashing");
			case "grow":
				grown = true;
				setTimeout(() => void server.sendToolListChanged(), 10);
				return text("grown");
			case "env":
				return text(`${args.name}=${process.env[String(args.name)] ?? "(unset)"}`);
			case "extra":
				return text("extra works");
			case "dotted.name/x":
				return text("dotted works");
			default:
				return { content: [{ type: "text", text: `unknown tool ${request.params.name}` }], isError: true };
		}
	});
	return server;
}
