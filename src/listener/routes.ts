/**
 * The listener's HTTP routes as a table: a path, the methods served, whether admission comes first, a handler.
 * The router reads it in one order for every request (as Hono's does): the first route whose path matches; a
 * method it does not serve is a 405; then admission, if the route needs it; then the handler. A path no route
 * matches is a 404. WebSocket upgrades are routed in upgrade.ts, with the same path matching.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CollabRooms } from "../collab/rooms.js";
import type { Dispatcher } from "../protocol/dispatch.js";
import type { AdmittedRoute } from "./admission.js";
import { collabRoomIdOf } from "./collab-route.js";
import { exportTarget, isExportPath, serveExport } from "./export-route.js";
import { type Refusal, refuse } from "./refusal.js";
import { serveRpc } from "./rpc-route.js";
import { serveUpload } from "./upload-route.js";
import { isWebAppPath, serveWebAppFile } from "./web-app.js";
import { serveWebPage, type WebPageSource } from "./web-route.js";

/** A path exactly, or a test of it. Paths never include the query string. */
export type PathMatcher = string | ((path: string) => boolean);

export type Handler = (request: IncomingMessage, response: ServerResponse, path: string) => void;

export interface Route {
	readonly path: PathMatcher;
	/**
	 * The methods served; GET brings HEAD (node sends HEAD's answer without the body). Absent, every method
	 * reaches the handler, which answers a wrong one itself.
	 */
	readonly methods?: readonly string[];
	/** The 405's reason for another method. */
	readonly wrongMethod?: string;
	/** The admission the request passes before the handler runs, after the method is checked. */
	readonly admit?: AdmittedRoute;
	readonly handle: Handler;
}

/** How the router asks for admission (admission.ts's Admission.request). */
export type Admit = (request: IncomingMessage, route: AdmittedRoute) => { ok: true } | Refusal;

/** What a path no route matches is told, by HTTP and by an upgrade alike. */
export const NOT_FOUND: Refusal = { ok: false, status: 404, reason: "not found" };
const UPGRADE_REQUIRED: Refusal = { ok: false, status: 426, reason: "upgrade required: /ws is a WebSocket endpoint" };
const EXPORT_NOT_FOUND = "not found: export a session as /export/<sessionId>.html or /export/<sessionId>.jsonl";

/** The path of a request target without its query string. */
export function pathOf(url: string | undefined): string {
	const target = url ?? "/";
	const query = target.indexOf("?");
	return query < 0 ? target : target.slice(0, query);
}

/** The first route whose path matches. */
export function findRoute<R extends { readonly path: PathMatcher }>(routes: readonly R[], path: string): R | undefined {
	return routes.find((route) => (typeof route.path === "string" ? route.path === path : route.path(path)));
}

/** The methods a route serves, HEAD with GET. */
function served(methods: readonly string[]): readonly string[] {
	return methods.includes("GET") && !methods.includes("HEAD") ? [...methods, "HEAD"] : methods;
}

/** Answers every request by the table. */
export function createRouter(routes: readonly Route[], admit: Admit): (request: IncomingMessage, response: ServerResponse) => void {
	return (request, response) => {
		const path = pathOf(request.url);
		const route = findRoute(routes, path);
		if (!route) return refuse(response, NOT_FOUND);
		const methods = route.methods && served(route.methods);
		if (methods && !methods.includes(request.method ?? "")) {
			const reason = route.wrongMethod ?? "method not allowed";
			return refuse(response, { ok: false, status: 405, reason, allow: methods });
		}
		const admission = route.admit ? admit(request, route.admit) : undefined;
		if (admission && !admission.ok) return refuse(response, admission);
		route.handle(request, response, path);
	};
}

/** `/collab/ws/<roomId>` for a well-formed room id, when the listener has rooms at all. */
export function guestPath(collab: CollabRooms | undefined): PathMatcher {
	return (path) => collab !== undefined && collabRoomIdOf(path) !== undefined;
}

/** A handler's work that failed: refused if nothing was sent yet, else the connection is cut (a half-sent body cannot be taken back). */
const failed = (response: ServerResponse, status: number, reason: string) => () => {
	if (!response.headersSent) refuse(response, { ok: false, status, reason });
	else response.destroy();
};

export interface RouteContext {
	dispatcher: Dispatcher;
	web: WebPageSource;
	collab?: CollabRooms;
}

/** The listener's routes. Their paths do not overlap, so their order does not matter. */
export function listenerRoutes({ dispatcher, web, collab }: RouteContext): Route[] {
	return [
		{
			path: (path) => path === "/web" || path === "/web/",
			methods: ["GET"],
			handle: (request, response) => serveWebPage(request, response, web),
		},
		// The installable app's manifest, icon and service worker: no token, like the page (they carry no data).
		{ path: isWebAppPath, methods: ["GET"], handle: serveWebAppFile },
		{ path: "/", handle: (_request, response) => void response.writeHead(302, { Location: "/web" }).end() },
		// Every method is admitted first: serveRpc answers a wrong one (405, Allow: POST) only to a client that
		// may use /rpc, and a wrong credential counts against the address whatever the method.
		{
			path: "/rpc",
			admit: "/rpc",
			handle: (request, response) => void serveRpc(request, response, dispatcher).catch(failed(response, 400, "request could not be read")),
		},
		{
			path: "/attachments",
			methods: ["POST"],
			wrongMethod: "method not allowed: POST an image (its bytes as the body, its type as Content-Type) to /attachments",
			admit: "/attachments",
			handle: (request, response) => void serveUpload(request, response, dispatcher).catch(failed(response, 400, "the upload could not be read")),
		},
		{ path: "/ws", handle: (_request, response) => refuse(response, UPGRADE_REQUIRED) },
		// The page in guest mode, for any well-formed room id: whether a room exists is never told here.
		{
			path: guestPath(collab),
			methods: ["GET"],
			handle: (request, response, path) => serveWebPage(request, response, web, path),
		},
		{
			path: isExportPath,
			methods: ["GET"],
			wrongMethod: "method not allowed: GET /export/<sessionId>.html or .jsonl",
			admit: "/export",
			// A malformed export path is told apart from an unknown path, but only to a client that may download.
			handle: (request, response, path) => {
				const target = exportTarget(path);
				if (!target) return refuse(response, { ok: false, status: 404, reason: EXPORT_NOT_FOUND });
				serveExport(request, response, dispatcher, target).catch(failed(response, 500, "the export failed"));
			},
		},
	];
}
