/** Writes a recorded session (pi v3 JSONL) with many messages, for long-session tests and benchmarks. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function writeLongSession(agentDir: string, cwd: string, id: string, messageCount: number): string {
	const dir = join(agentDir, "sessions", `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`);
	mkdirSync(dir, { recursive: true });
	const start = Date.parse("2026-01-01T00:00:00Z");
	const lines = [JSON.stringify({ type: "session", version: 3, id, timestamp: new Date(start).toISOString(), cwd })];
	let parentId: string | null = null;
	const usage = { input: 10, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: 20, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
	for (let i = 0; i < messageCount; i++) {
		const timestamp = start + i * 1000;
		const message =
			i % 2 === 0
				? { role: "user", content: [{ type: "text", text: `Question number ${i / 2}: how does part ${i} work?` }], timestamp }
				: {
						role: "assistant",
						content: [{ type: "text", text: `Answer ${i}: it works like **this**, with \`code\` and a list:\n\n- one\n- two\n\n\`\`\`ts\nconst x = ${i};\n\`\`\`` }],
						api: "openai-completions",
						provider: "fake",
						model: "fake-model",
						usage,
						stopReason: "stop",
						timestamp,
					};
		const entryId = `e${i.toString(16).padStart(7, "0")}`;
		lines.push(JSON.stringify({ type: "message", id: entryId, parentId, timestamp: new Date(timestamp).toISOString(), message }));
		parentId = entryId;
	}
	const path = join(dir, `2026-01-01T00-00-00-000Z_${id}.jsonl`);
	writeFileSync(path, `${lines.join("\n")}\n`);
	return path;
}
