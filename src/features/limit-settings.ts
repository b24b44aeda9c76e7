/**
 * A feature's limits as settings: each limit is an integer key `<category>.<name>`, global only (it bounds
 * what the whole service runs), applied live, with its bounds, description and default; the limits in force
 * are the settings' values with defaults for the keys not set. Jobs and workflows keep theirs this way.
 */
import { Type } from "typebox";
import { defineSetting, type SettingDefinition } from "../settings/definition.js";

/** Each limit's minimum, maximum and description. */
export type LimitBounds<Limits> = Record<keyof Limits, [minimum: number, maximum: number, description: string]>;

export interface LimitSettings<Limits> {
	/** One definition per limit, in the order of the bounds. */
	definitions: SettingDefinition[];
	/** The limits from the settings' values (defaults for keys not set). */
	from(values: Map<string, unknown>): Limits;
}

export function limitSettings<Limits extends Record<keyof Limits, number>>(category: string, defaults: Limits, bounds: LimitBounds<Limits>): LimitSettings<Limits> {
	const names = Object.keys(bounds) as Array<keyof Limits & string>;
	return {
		definitions: names.map((name) => {
			const [minimum, maximum, description] = bounds[name];
			return defineSetting({
				key: `${category}.${name}`,
				category,
				scopes: ["global"],
				applies: "live",
				schema: Type.Integer({ minimum, maximum, description, default: defaults[name] }),
			});
		}),
		from(values) {
			const limits = { ...defaults };
			for (const name of names) {
				const value = values.get(`${category}.${name}`);
				if (typeof value === "number") limits[name] = value as Limits[typeof name];
			}
			return limits;
		},
	};
}
