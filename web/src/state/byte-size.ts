/** A size as people read it: bytes, KiB or MiB. */
export function byteSize(bytes: number): string {
	if (bytes < 1024) return `${bytes} bytes`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KiB`;
	return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
