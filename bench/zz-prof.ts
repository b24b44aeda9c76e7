import { randomUUID } from "node:crypto";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import WebSocket from "ws";
import { StressClient } from "../stress/client.js";
import { inspectorUrl } from "../stress/heap.js";
import { startService } from "../stress/service.js";
const service = await startService();
const sessions = join(service.agentDir, "sessions");
const day = new Date(Date.now() - 86400000);
for (let f = 0; f < 100; f++) { const folder = join(sessions, `--home-user-project-${f}--`); mkdirSync(folder, { recursive: true });
  for (let i = f; i < 5000; i += 100) { const id = randomUUID(); const p = join(folder, `2026-01-01T00-00-${i}_${id}.jsonl`); writeFileSync(p, JSON.stringify({type:"session",version:3,id,cwd:"/x"})+"\n"); utimesSync(p, day, day);} utimesSync(folder, day, day);}
utimesSync(sessions, day, day);
await service.restart();
const socket = new WebSocket(inspectorUrl(service.skiff.stderr())!);
await new Promise((r) => socket.once("open", r));
let n = 1; const call = (method: string, params = {}) => new Promise<any>((resolve) => { const id = n++; const on = (d: any) => { const m = JSON.parse(d.toString()); if (m.id === id) { socket.off("message", on); resolve(m.result); } }; socket.on("message", on); socket.send(JSON.stringify({ id, method, params })); });
await call("Profiler.enable"); await call("Profiler.setSamplingInterval", { interval: 100 }); await call("Profiler.start");
const clients = await Promise.all(Array.from({ length: 8 }, () => StressClient.connect(service.skiff.wsUrl)));
const C = ["get_state", "get_messages", "switch_session", "close_session"];
for (let r = 0; r < 10; r++) {
  const t = performance.now();
  await Promise.all(Array.from({ length: 128 }, (_, i) => { const type = C[i % 4]!; const id = randomUUID(); return clients[i % 8]!.request(type === "switch_session" ? { type, sessionPath: id } : { type, sessionId: id }); }));
  console.log("burst", (performance.now() - t).toFixed(1));
}
const { profile } = await call("Profiler.stop");
writeFileSync(process.env.OUT ?? "/tmp/scratch/prof.cpuprofile", JSON.stringify(profile));
socket.close(); for (const c of clients) c.close(); await service.stop();
