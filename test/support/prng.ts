/** A tiny seeded pseudo-random generator (mulberry32) for property tests: the same seed, the same sequence. */
export class Prng {
	private state: number;

	constructor(seed: number) {
		this.state = seed >>> 0;
	}

	/** A float in [0, 1). */
	next(): number {
		this.state = (this.state + 0x6d2b79f5) >>> 0;
		let t = this.state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}

	/** An integer in [0, n). */
	int(n: number): number {
		return Math.floor(this.next() * n);
	}

	pick<T>(items: readonly T[]): T {
		return items[this.int(items.length)]!;
	}

	chance(p: number): boolean {
		return this.next() < p;
	}

	/** `text` cut into pieces of 1 to `max` characters. */
	pieces(text: string, max: number): string[] {
		const pieces: string[] = [];
		for (let i = 0; i < text.length; ) {
			const size = 1 + this.int(max);
			pieces.push(text.slice(i, i + size));
			i += size;
		}
		return pieces;
	}

	/** Up to `max` distinct items of `items`, in random order. */
	some<T>(items: readonly T[], max: number): T[] {
		const pool = [...items];
		const out: T[] = [];
		for (let n = this.int(max + 1); n > 0 && pool.length > 0; n--) out.push(pool.splice(this.int(pool.length), 1)[0]!);
		return out;
	}
}
