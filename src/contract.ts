/**
 * Every command and event the service speaks, registered in one place: the core's and each feature's.
 * The dispatcher validates against these, `npm run docs:protocol` documents them (docs/protocol.md,
 * docs/protocol.schema.json) and types the client from them (src/client/protocol.generated.ts).
 */
import { memoryCommands, memoryDoctorCheck } from "./memory/commands.js";
import type { MemoryService } from "./memory/memory-service.js";
import { CommandRegistry } from "./protocol/command.js";
import { doctorCommands, type ServiceFacts } from "./protocol/commands/doctor.js";
import {
	exportCommands,
	maintenanceCommands,
	modelCommands,
	runCommands,
	sessionCommands,
	settingsCommands,
	shellCommands,
	stateCommands,
	streamCommands,
	treeCommands,
} from "./protocol/commands/index.js";
import { EventRegistry } from "./protocol/event.js";
import { coreEvents } from "./protocol/events/core-events.js";

/** The services features' command handlers need. */
export interface ContractFeatures {
	memory: MemoryService;
	/** Facts of the running service for `doctor` (absent where none runs: documentation, tests). */
	service?: ServiceFacts;
}

export function createCommandRegistry(features: ContractFeatures): CommandRegistry {
	return new CommandRegistry().register(
		...memoryCommands(features.memory),
		...runCommands,
		...stateCommands,
		...modelCommands,
		...sessionCommands,
		...maintenanceCommands,
		...settingsCommands,
		...shellCommands,
		...exportCommands,
		...streamCommands,
		...treeCommands,
		...doctorCommands({ service: features.service, checks: [memoryDoctorCheck(features.memory)] }),
	);
}

export function createEventRegistry(): EventRegistry {
	return new EventRegistry().register(...coreEvents);
}
