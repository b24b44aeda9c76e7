/**
 * What each answer's footer says of it, from what pi records in its messages: the model, and the tokens and cost
 * of every model call of its turn (a turn that called tools made several), on the reply that ends the turn.
 */
import type { Message } from "../../../src/client/index.js";

const count = (n: number) => (n < 1000 ? String(n) : `${(n / 1000).toFixed(1)}k`);

export function answerUsage(messages: readonly Message[]): Map<Message, string> {
	const lines = new Map<Message, string>();
	let input = 0;
	let output = 0;
	let cost = 0;
	for (const m of messages) {
		if (m.role === "user") input = output = cost = 0;
		if (m.role !== "assistant") continue;
		const usage = m.usage;
		input += (usage?.input ?? 0) + (usage?.cacheRead ?? 0) + (usage?.cacheWrite ?? 0);
		output += usage?.output ?? 0;
		cost += usage?.cost?.total ?? 0;
		if (m.stopReason === "toolUse") continue;
		lines.set(m, [m.model, `${count(input)} in`, `${count(output)} out`, cost > 0 ? `$${cost.toFixed(cost < 0.01 ? 4 : 2)}` : ""].filter(Boolean).join(" · "));
		input = output = cost = 0;
	}
	return lines;
}
