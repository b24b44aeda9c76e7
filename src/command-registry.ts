/** Every command the service answers, registered in one place; features add theirs here as they arrive. */
import { CommandRegistry } from "./protocol/command.js";
import {
	maintenanceCommands,
	modelCommands,
	runCommands,
	sessionCommands,
	stateCommands,
	streamCommands,
} from "./protocol/commands/index.js";

export function createCommandRegistry(): CommandRegistry {
	return new CommandRegistry().register(
		...runCommands,
		...stateCommands,
		...modelCommands,
		...sessionCommands,
		...maintenanceCommands,
		...streamCommands,
	);
}
