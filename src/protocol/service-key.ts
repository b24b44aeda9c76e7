/**
 * How a command handler reaches a feature's service: through its context, by the key the feature declares, as
 * core commands reach the addressed session with `context.session()`. The composition root files every started
 * service under its key; a command set can thus be listed (documented, checked against its schemas) without a
 * single service being built.
 */
import { CodedError } from "../shared/errors.js";

export interface ServiceKey<T> {
	/** The feature's name, in errors and in the composition root's order checks. */
	readonly name: string;
	/** Why a command needing the service fails where it does not run (the reason of an `unavailable` error). */
	readonly absent: string;
	/** Never set: ties the key to the service's type, so `context.service(key)` is typed without casts. */
	readonly type?: () => T;
}

export function serviceKey<T>(name: string, absent = `The ${name} feature is not running in this service`): ServiceKey<T> {
	return { name, absent };
}

/** Started services by key; a key without one answers with the key's own reason. */
export class ServiceDirectory {
	private readonly services = new Map<ServiceKey<unknown>, unknown>();

	/** Files `service` under `key`; `undefined` leaves the key unavailable (a feature that does not run here). */
	provide<T>(key: ServiceKey<T>, service: T | undefined): this {
		if (this.services.has(key)) throw new Error(`The ${key.name} service is provided twice`);
		if (service !== undefined) this.services.set(key, service);
		return this;
	}

	has(key: ServiceKey<unknown>): boolean {
		return this.services.has(key);
	}

	/** The service filed under `key`; throws `unavailable` with the key's reason when there is none. */
	get<T>(key: ServiceKey<T>): T {
		if (!this.services.has(key)) throw new CodedError("unavailable", key.absent);
		return this.services.get(key) as T;
	}
}
