/**
 * The peer medians that the benchmark page compares skiff against, copied from docs/peer-baselines.md
 * (main run, n = 9 per peer, measured 2026-11-22). They are fixed historical figures: keep them equal to
 * that page's table.
 */

/** The length of the measured reply in the peer baselines; the comparison holds only for the same length. */
export const PEER_REPLY_DELTAS = 20_000;

export type Peer = "pi 0.73.1" | "opencode 1.18.33" | "codex 0.169.0";

/** Whether a smaller or a larger figure is the better one. */
export type Better = "lower" | "higher";

export interface PeerRow {
	better: Better;
	medians: Record<Peer, number>;
}

/** Keys shared with the streaming benchmark's metrics. */
export type PeerMetric =
	| "readyMs"
	| "idleRssMiB"
	| "firstPromptMs"
	| "firstDeltaMs"
	| "totalMs"
	| "deltasPerSecond"
	| "bytesPerDelta"
	| "endRssMiB"
	| "settledRssMiB";

export const PEER_BASELINES: Record<PeerMetric, PeerRow> = {
	readyMs: { better: "lower", medians: { "pi 0.73.1": 1523, "opencode 1.18.33": 1721, "codex 0.169.0": 95 } },
	idleRssMiB: { better: "lower", medians: { "pi 0.73.1": 137.4, "opencode 1.18.33": 312.1, "codex 0.169.0": 89.6 } },
	firstPromptMs: { better: "lower", medians: { "pi 0.73.1": 75, "opencode 1.18.33": 2289, "codex 0.169.0": 90 } },
	firstDeltaMs: { better: "lower", medians: { "pi 0.73.1": 8, "opencode 1.18.33": 3080, "codex 0.169.0": 72 } },
	totalMs: { better: "lower", medians: { "pi 0.73.1": 3349, "opencode 1.18.33": 3277, "codex 0.169.0": 1610 } },
	deltasPerSecond: { better: "higher", medians: { "pi 0.73.1": 5971, "opencode 1.18.33": 6103, "codex 0.169.0": 12420 } },
	bytesPerDelta: { better: "lower", medians: { "pi 0.73.1": 20824.2, "opencode 1.18.33": 250.3, "codex 0.169.0": 210.2 } },
	endRssMiB: { better: "lower", medians: { "pi 0.73.1": 1225.3, "opencode 1.18.33": 853.2, "codex 0.169.0": 153.2 } },
	settledRssMiB: { better: "lower", medians: { "pi 0.73.1": 893.6, "opencode 1.18.33": 839.9, "codex 0.169.0": 153.0 } },
};

/** The peer with the best median for a metric. */
export function bestPeer(metric: PeerMetric): { peer: Peer; median: number } {
	const { better, medians } = PEER_BASELINES[metric];
	const ranked = (Object.entries(medians) as Array<[Peer, number]>).sort(([, a], [, b]) => (better === "lower" ? a - b : b - a));
	const [peer, median] = ranked[0]!;
	return { peer, median };
}
