/** Every command the service answers, registered in one place; features add theirs here as they arrive. */
import { memoryCommands } from "./memory/commands.js";
import type { MemoryService } from "./memory/memory-service.js";
import { CommandRegistry } from "./protocol/command.js";
import {
	maintenanceCommands,
	modelCommands,
	runCommands,
	sessionCommands,
	stateCommands,
	streamCommands,
} from "./protocol/commands/index.js";

export function createCommandRegistry(features: { memory: MemoryService }): CommandRegistry {
	return new CommandRegistry().register(
		...memoryCommands(features.memory),
		...runCommands,
		...stateCommands,
		...modelCommands,
		...sessionCommands,
		...maintenanceCommands,
		...streamCommands,
	);
}
