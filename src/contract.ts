/**
 * Every command, event and setting the service speaks or honours, registered in one place: the core's and
 * each feature's. The dispatcher validates against these, `npm run docs:protocol` documents them
 * (docs/protocol.md, docs/protocol.schema.json, docs/settings.md) and types the client from them
 * (src/client/protocol.generated.ts).
 */
import { collabCommands } from "./collab/commands.js";
import { collabEvents } from "./collab/events.js";
import type { CollabRooms } from "./collab/rooms.js";
import { goalCommands } from "./features/goal/commands.js";
import { goalEvents } from "./features/goal/events.js";
import { GoalService } from "./features/goal/service.js";
import { SettingsCatalog } from "./features/settings/catalog.js";
import { settingsFeatureCommands } from "./features/settings/commands.js";
import type { SettingDefinition } from "./features/settings/definition.js";
import { settingsEvents } from "./features/settings/events.js";
import { jobCommands } from "./features/jobs/commands.js";
import { jobEvents } from "./features/jobs/events.js";
import { JobService } from "./features/jobs/job-service.js";
import { DEFAULT_JOB_LIMITS, jobSettingDefinitions } from "./features/jobs/settings.js";
import { personaCommands } from "./features/personas/commands.js";
import { PersonaStore } from "./features/personas/persona-store.js";
import { sideChatCommands } from "./features/side-chat/commands.js";
import { sideChatEvents } from "./features/side-chat/events.js";
import { SideChatService } from "./features/side-chat/side-chat-service.js";
import { sessionSettingDefinitions } from "./features/settings/session-settings.js";
import { SettingsService } from "./features/settings/settings-service.js";
import { todoCommands } from "./features/todo/commands.js";
import { todoEvents } from "./features/todo/events.js";
import { TodoService } from "./features/todo/service.js";
import { workflowCommands } from "./features/workflows/commands.js";
import { workflowEvents } from "./features/workflows/events.js";
import { DEFAULT_WORKFLOW_LIMITS, workflowSettingDefinitions } from "./features/workflows/settings.js";
import { WorkflowService } from "./features/workflows/workflow-service.js";
import { memoryCommands, memoryDoctorCheck } from "./memory/commands.js";
import { MemoryService } from "./memory/memory-service.js";
import { memorySettingDefinitions } from "./memory/settings-consumer.js";
import { DEFAULT_MEMORY_SETTINGS } from "./memory/settings.js";
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
	settings: SettingsService;
	sideChats: SideChatService;
	jobs: JobService;
	personas: PersonaStore;
	todo: TodoService;
	goal: GoalService;
	workflows: WorkflowService;
	/** Facts of the running service for `doctor` (absent where none runs: documentation, tests). */
	service?: ServiceFacts;
	/** The listener's collaboration rooms (absent without a listener: the collab commands are then unavailable). */
	collab?: CollabRooms;
}

/** Every setting Skiff honours: the sessions' and each feature's (a feature with settings adds its list here). */
export function settingDefinitions(): SettingDefinition[] {
	return [...sessionSettingDefinitions, ...memorySettingDefinitions, ...jobSettingDefinitions, ...workflowSettingDefinitions];
}

export function createSettingsCatalog(): SettingsCatalog {
	return new SettingsCatalog(settingDefinitions());
}

export function createCommandRegistry(features: ContractFeatures): CommandRegistry {
	return new CommandRegistry().register(
		...memoryCommands(features.memory),
		...settingsFeatureCommands(features.settings),
		...sideChatCommands(features.sideChats),
		...jobCommands(features.jobs),
		...personaCommands(features.personas, features.jobs),
		...todoCommands(features.todo),
		...goalCommands(features.goal),
		...workflowCommands(features.workflows),
		...collabCommands(features.collab),
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

/**
 * Every command, with services that are never called: for rendering the docs and checking responses against
 * the schemas, which read only names and schemas.
 */
export function createSchemaRegistry(): CommandRegistry {
	return createCommandRegistry({
		memory: new MemoryService("", DEFAULT_MEMORY_SETTINGS),
		settings: new SettingsService({ agentDir: "", catalog: createSettingsCatalog() }),
		todo: new TodoService(),
		goal: new GoalService(),
		sideChats: new SideChatService({ observe: () => () => {}, publish: () => {} }),
		jobs: inertJobService(),
		workflows: new WorkflowService({
			store: { load: () => [], save: () => undefined, remove: () => undefined, worktreeOf: () => "" },
			jobs: inertJobService(),
			observe: () => () => {},
			planOf: () => undefined,
			publish: () => undefined,
			limits: () => DEFAULT_WORKFLOW_LIMITS,
			knownTools: [],
			warn: () => undefined,
		}),
		personas: new PersonaStore({ agentDir: "", trusted: () => false, knownTools: [] }),
	});
}

/** A job service that runs nothing and keeps nothing (the schema registry only reads names and schemas). */
function inertJobService(): JobService {
	const nothing = () => undefined;
	return new JobService({
		runtime: { observe: () => () => {}, shuttingDown: true } as unknown as ConstructorParameters<typeof JobService>[0]["runtime"],
		store: { load: () => [], save: nothing, saveOutput: nothing, output: nothing, forget: nothing },
		publish: nothing,
		limits: () => DEFAULT_JOB_LIMITS,
		catalog: () => [],
		warn: nothing,
	});
}

export function createEventRegistry(): EventRegistry {
	return new EventRegistry().register(...coreEvents, ...settingsEvents, ...sideChatEvents, ...jobEvents, ...todoEvents, ...goalEvents, ...workflowEvents, ...collabEvents);
}
