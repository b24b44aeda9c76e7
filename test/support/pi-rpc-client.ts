/**
 * pi's RPC client (the class pi's package exports as `RpcClient`), loaded from its own module: the package's index
 * loads all of pi (about a thousand modules, through tsx's hooks in a test: some 1.7 s of CPU), while the client
 * needs one module and pi's JSONL reader. The package's `exports` name only its index, so the module is found
 * beside the index Node resolves; it is the very file the index re-exports.
 */
import type { RpcClient as PiRpcClient } from "@mariozechner/pi-coding-agent";

const index = import.meta.resolve("@mariozechner/pi-coding-agent");

export const RpcClient: typeof PiRpcClient = ((await import(new URL("modes/rpc/rpc-client.js", index).href)) as { RpcClient: typeof PiRpcClient }).RpcClient;
export type RpcClient = PiRpcClient;
