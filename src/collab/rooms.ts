/**
 * Collaboration rooms: each shares one session with guests holding a link, with a control key and a view
 * key. Rooms live in memory only (a restart ends them) and are bounded, as are their guests. The service
 * keeps both keys (it is the far end of every guest's encryption) and compares the capabilities guests
 * present in constant time. The listener's relay (src/listener/collab-socket.ts) seats guests; the
 * `collab_*` commands start, list and stop rooms.
 */
import { CodedError } from "../shared/errors.js";
import {
	CLOSE_ROOM_STOPPED,
	COLLAB_PATH_PREFIX,
	type CollabRole,
	encodeBase64Url,
	ROLE_FRAGMENT,
	ROOM_STOPPED_REASON,
} from "../shared/collab-wire.js";
import { capabilityOf, newRoomSecrets, sameCapability } from "./channel.js";
import type { RoomLinks, RoomSummary } from "./schemas.js";

/** Rooms one service holds at once; `collab_start` beyond it fails with `limit`. */
export const MAX_COLLAB_ROOMS = 8;
/** Guests one room seats at once (joined or joining); one more is closed with 4003 "collaboration room is full". */
export const MAX_ROOM_PARTICIPANTS = 8;

/** A guest's connection as its room sees it. */
export interface Participant {
	readonly role: CollabRole;
	/** The guest proved it holds the key (its first frame opened); only then does it count as connected. */
	readonly joined: boolean;
	/** Closes the guest's connection with this close code and reason. */
	close(code: number, reason: string): void;
}

/** A room started, a guest joined or left, or the room stopped. */
export interface RoomChange {
	room: RoomSummary;
	stopped: boolean;
}

export interface CollabRoomsOptions {
	/**
	 * The origin of links (`http(s)://host[:port]`): `baseUrl` when given (validated), else the service's own.
	 * Throws a CodedError naming what is wrong (a bad baseUrl, or a wildcard bind with no advertised origin).
	 */
	linkOrigin: (baseUrl: string | undefined) => string;
	maxRooms?: number;
	maxParticipants?: number;
	now?: () => Date;
}

export class CollabRoom {
	private readonly keys: Record<CollabRole, Buffer>;
	private readonly capabilities: Record<CollabRole, Buffer>;
	private readonly participants = new Set<Participant>();
	private ended = false;

	/** @internal rooms are made by CollabRooms.start */
	constructor(
		readonly roomId: string,
		readonly sessionId: string,
		readonly links: RoomLinks,
		keys: Record<CollabRole, Buffer>,
		private readonly participantLimit: number,
		readonly startedAt: Date,
		private readonly changed: (room: CollabRoom, stopped: boolean) => void,
	) {
		this.keys = keys;
		this.capabilities = { control: capabilityOf(keys.control), view: capabilityOf(keys.view) };
	}

	/** Whether the room was stopped (its guests are closed, it seats no one). */
	get stopped(): boolean {
		return this.ended;
	}

	/** Whether another guest would be over the participant limit. */
	get full(): boolean {
		return this.participants.size >= this.participantLimit;
	}

	/** The role whose capability this is; both are compared, each in constant time. */
	roleOf(capability: Uint8Array): CollabRole | undefined {
		const control = sameCapability(capability, this.capabilities.control);
		const view = sameCapability(capability, this.capabilities.view);
		return control ? "control" : view ? "view" : undefined;
	}

	/** The key of a role, for the relay's end of a guest's encryption. */
	keyOf(role: CollabRole): Buffer {
		return this.keys[role];
	}

	/** Seats a guest that is connecting; false when the room is full or stopped. */
	admit(participant: Participant): boolean {
		if (this.ended || this.full) return false;
		this.participants.add(participant);
		return true;
	}

	/** A seated guest proved it holds the key. */
	joined(participant: Participant): void {
		if (this.participants.has(participant)) this.changed(this, false);
	}

	/** A guest's connection ended. */
	leave(participant: Participant): void {
		if (this.participants.delete(participant) && participant.joined && !this.ended) this.changed(this, false);
	}

	summary(): RoomSummary {
		let controlGuests = 0;
		let viewGuests = 0;
		for (const p of this.participants) {
			if (!p.joined) continue;
			if (p.role === "control") controlGuests++;
			else viewGuests++;
		}
		return {
			roomId: this.roomId,
			sessionId: this.sessionId,
			controlGuests,
			viewGuests,
			participantLimit: this.participantLimit,
			startedAt: this.startedAt.toISOString(),
		};
	}

	/** @internal closes every guest and forgets the keys; CollabRooms.stop calls it */
	end(): number {
		if (this.ended) return 0;
		this.ended = true;
		const guests = [...this.participants];
		this.participants.clear();
		for (const guest of guests) guest.close(CLOSE_ROOM_STOPPED, ROOM_STOPPED_REASON);
		this.keys.control.fill(0);
		this.keys.view.fill(0);
		this.changed(this, true);
		return guests.length;
	}
}

export class CollabRooms {
	private readonly rooms = new Map<string, CollabRoom>();
	private readonly listeners = new Set<(change: RoomChange) => void>();
	readonly maxRooms: number;
	readonly maxParticipants: number;

	constructor(private readonly options: CollabRoomsOptions) {
		this.maxRooms = options.maxRooms ?? MAX_COLLAB_ROOMS;
		this.maxParticipants = options.maxParticipants ?? MAX_ROOM_PARTICIPANTS;
	}

	/** Rooms open now. */
	get size(): number {
		return this.rooms.size;
	}

	/** Starts a room sharing `sessionId`, with fresh keys; its links are built on `baseUrl` or the service's origin. */
	start(sessionId: string, baseUrl?: string): RoomLinks {
		const origin = this.options.linkOrigin(baseUrl);
		if (this.rooms.size >= this.maxRooms) {
			throw new CodedError("limit", `Too many collaboration rooms (limit ${this.maxRooms}): stop one with collab_stop first`);
		}
		const { roomId, controlKey, viewKey } = newRoomSecrets();
		const base = `${origin}${COLLAB_PATH_PREFIX}${roomId}`;
		const links: RoomLinks = {
			roomId,
			sessionId,
			controlLink: `${base}#${ROLE_FRAGMENT.control}=${encodeBase64Url(controlKey)}`,
			viewLink: `${base}#${ROLE_FRAGMENT.view}=${encodeBase64Url(viewKey)}`,
		};
		const now = this.options.now?.() ?? new Date();
		const room = new CollabRoom(roomId, sessionId, links, { control: controlKey, view: viewKey }, this.maxParticipants, now, (r, stopped) =>
			this.emit({ room: r.summary(), stopped }),
		);
		this.rooms.set(roomId, room);
		this.emit({ room: room.summary(), stopped: false });
		return links;
	}

	/** Open rooms, oldest first; one when `roomId` is given (not_found when it is not open). */
	list(roomId?: string): CollabRoom[] {
		if (roomId === undefined) return [...this.rooms.values()];
		return [this.open(roomId)];
	}

	/** Stops a room: its guests are closed with 4001 "collaboration room stopped". Returns how many were closed. */
	stop(roomId: string): { room: RoomSummary; closedGuests: number } {
		const room = this.open(roomId);
		this.rooms.delete(roomId);
		const summary = room.summary();
		return { room: summary, closedGuests: room.end() };
	}

	/** Stops every room (the service is shutting down). */
	stopAll(): void {
		for (const roomId of [...this.rooms.keys()]) this.stop(roomId);
	}

	/** The open room and the role a guest's capability grants in it, or undefined (unknown room, wrong capability). */
	authenticate(roomId: string, capability: Uint8Array): { room: CollabRoom; role: CollabRole } | undefined {
		const room = this.rooms.get(roomId);
		const role = room?.roleOf(capability);
		return room && role ? { room, role } : undefined;
	}

	/** Calls `listener` on every change; returns how to stop. */
	onChange(listener: (change: RoomChange) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	private open(roomId: string): CollabRoom {
		const room = this.rooms.get(roomId);
		if (!room) throw new CodedError("not_found", "No open collaboration room has this id (stopped, or never started)");
		return room;
	}

	private emit(change: RoomChange): void {
		for (const listener of this.listeners) listener(change);
	}
}
