/**
 * Preact vnodes as inspectable markup, for unit tests in Node without a DOM: `h` returns plain objects, and
 * this walks them. Text is escaped the way a DOM would show it (`<` as `&lt;`), so a raw `<script>` in the
 * output proves it would have become a text node; components are not called (they may use hooks) and show
 * as `<Name prop="…"/>`. Attributes are sorted; `false`, `null` and `undefined` ones are left out.
 */
import type { ComponentChildren, VNode } from "preact";

/** Elements that never have children, written `<br/>`. */
const VOID = new Set(["br", "hr", "img", "input"]);

const escapeText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const escapeAttribute = (text: string) => escapeText(text).replace(/"/g, "&quot;");

function attributes(props: Record<string, unknown>): string {
	return Object.keys(props)
		.filter((name) => name !== "children" && name !== "key" && props[name] !== false && props[name] != null)
		.sort()
		.map((name) => {
			const value = props[name];
			if (value === true) return ` ${name}`;
			if (typeof value === "function") return ` ${name}={fn}`;
			if (typeof value === "object") return ` ${name}=${JSON.stringify(value)}`;
			return ` ${name}="${escapeAttribute(String(value))}"`;
		})
		.join("");
}

/** The markup of a vnode tree (children arrays flattened, empty children left out). */
export function markup(node: ComponentChildren): string {
	if (node === null || node === undefined || typeof node === "boolean") return "";
	if (typeof node === "string" || typeof node === "number" || typeof node === "bigint") return escapeText(String(node));
	if (Array.isArray(node)) return node.map(markup).join("");
	const vnode = node as VNode<Record<string, unknown>>;
	if (typeof vnode.type === "function") return `<${vnode.type.name}${attributes(vnode.props)}/>`;
	const children = markup(vnode.props.children as ComponentChildren);
	if (VOID.has(vnode.type) && !children) return `<${vnode.type}${attributes(vnode.props)}/>`;
	return `<${vnode.type}${attributes(vnode.props)}>${children}</${vnode.type}>`;
}

/** The text a reader would see (components show nothing). */
export function textContent(node: ComponentChildren): string {
	if (node === null || node === undefined || typeof node === "boolean") return "";
	if (typeof node === "string" || typeof node === "number" || typeof node === "bigint") return String(node);
	if (Array.isArray(node)) return node.map(textContent).join("");
	const vnode = node as VNode<Record<string, unknown>>;
	return typeof vnode.type === "function" ? "" : textContent(vnode.props.children as ComponentChildren);
}
