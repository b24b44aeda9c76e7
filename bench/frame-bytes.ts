/**
 * Bytes a WebSocket message takes on the socket, frame header included, as a client counts them from the
 * payloads it receives: a server's frames are unmasked, and skiff sends every message as one frame, so the
 * header is 2 bytes up to 125 payload bytes, 4 up to 65,535 and 10 beyond (RFC 6455 §5.2).
 */
export function frameBytes(payloadBytes: number): number {
	return payloadBytes + (payloadBytes <= 125 ? 2 : payloadBytes <= 0xffff ? 4 : 10);
}
