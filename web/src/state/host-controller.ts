/**
 * The host page's controller, made (its socket opened, its first bind on its way) as this module is evaluated:
 * main.tsx imports it before the views, so that the socket's handshake overlaps the evaluation of the views'
 * modules (marked's rules, the panels: most of the script's). None at a collaboration link, where the page is a
 * guest's view with a connection of its own.
 */
import { isGuestPath } from "../collab/guest-link";
import { Controller } from "./controller";

export const hostController = isGuestPath(location.pathname) ? undefined : new Controller(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
hostController?.start();
