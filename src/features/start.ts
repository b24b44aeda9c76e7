/**
 * Starting the features: each after the features it `needs`, each service filed under its key (for commands,
 * and for the features started after it), and what a session gets from them (see session-policy.ts).
 */
import type { LoadedSession } from "../agent/runtime-manager.js";
import type { DoctorCheck } from "../protocol/commands/doctor.js";
import { ServiceDirectory, type ServiceKey } from "../protocol/service-key.js";
import type { FeatureHost, FeatureModule } from "./module.js";

/** A module and the service it started (undefined: it does not run in this process). */
export interface StartedFeature {
	readonly module: FeatureModule<any>;
	readonly service: unknown;
}

export interface StartedFeatures {
	readonly started: readonly StartedFeature[];
	/** Every running feature's service by key, for `context.service(key)`. */
	readonly services: ServiceDirectory;
	/** The features' checks for `doctor`. */
	readonly doctorChecks: Array<(session: LoadedSession) => Promise<DoctorCheck | undefined>>;
}

/** The modules in an order where each comes after those it needs (the list's order otherwise). */
export function startOrder(modules: readonly FeatureModule<any>[]): FeatureModule<any>[] {
	const byKey = new Map<ServiceKey<unknown>, FeatureModule<any>>(modules.map((m) => [m.key, m]));
	const ordered: FeatureModule<any>[] = [];
	const visiting: string[] = [];
	const visit = (module: FeatureModule<any>) => {
		if (ordered.includes(module)) return;
		if (visiting.includes(module.key.name)) throw new Error(`Features need each other in a loop: ${[...visiting, module.key.name].join(" → ")}`);
		visiting.push(module.key.name);
		for (const need of module.needs ?? []) {
			const needed = byKey.get(need);
			if (!needed) throw new Error(`The ${module.key.name} feature needs ${need.name}, which is not in the list`);
			visit(needed);
		}
		visiting.pop();
		ordered.push(module);
	};
	for (const module of modules) visit(module);
	return ordered;
}

/** Starts every module on `host` (whose `service` is filled in here) in dependency order. */
export function startFeatures(modules: readonly FeatureModule<any>[], host: Omit<FeatureHost, "service">): StartedFeatures {
	const services = new ServiceDirectory();
	const byModule = new Map<FeatureModule<any>, unknown>();
	for (const module of startOrder(modules)) {
		const own: FeatureHost = {
			...host,
			service: (key) => {
				if (!module.needs?.includes(key)) throw new Error(`The ${module.key.name} feature uses ${key.name} without naming it in \`needs\``);
				return services.get(key);
			},
		};
		const service = module.start(own);
		services.provide(module.key, service);
		byModule.set(module, service);
	}
	// In the list's order, not the start order: a session's tools and hidden context keep the list's order.
	const started = modules.map((module) => ({ module, service: byModule.get(module) }));
	const doctorChecks = started.flatMap(({ module, service }) => (module.doctor && service !== undefined ? [module.doctor(service)] : []));
	return { started, services, doctorChecks };
}
