/**
 * Reads a V8 `.cpuprofile` (node --cpu-prof) and says where the samples
 * went: self time by function and by module (an npm package, a file of
 * ours, Node's internals), and total (inclusive) time of our own functions.
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
}

export interface ProfileSummary {
  /** Sampled milliseconds in all. */
  totalMs: number;
  idleMs: number;
  byModule: Array<[string, number]>;
  bySelf: Array<[string, number]>;
  byTotal: Array<[string, number]>;
}

function moduleOf(url: string): string {
  if (!url) return "(native / V8)";
  if (url.startsWith("node:")) return "node:" + url.slice(5).split("/")[0];
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const ours = /\/(core|gateway|protocol|api)\/(?:dist|src)\/(.*)$/.exec(url);
  return ours ? `${ours[1]}/${ours[2]}` : url;
}

export function summarize(file: string, top = 25): ProfileSummary {
  const p = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const perSample = (p.endTime - p.startTime) / 1000 / Math.max(1, p.samples.length);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const hits = new Map<number, number>();
  for (const s of p.samples) hits.set(s, (hits.get(s) ?? 0) + 1);

  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  const modules = new Map<string, number>();
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let idle = 0;
  let all = 0;
  for (const [id, count] of hits) {
    const n = byId.get(id)!;
    const ms = count * perSample;
    all += ms;
    const name = n.callFrame.functionName || "(anonymous)";
    if (name === "(idle)") {
      idle += ms;
      continue;
    }
    const mod = moduleOf(n.callFrame.url);
    add(modules, mod, ms);
    add(self, `${name}  ${mod}:${n.callFrame.lineNumber + 1}`, ms);
    // Inclusive time of our own functions: each distinct frame on the stack once.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame;
      const m = moduleOf(f.url);
      if (!/^(core|gateway|protocol|api)\//.test(m)) continue;
      const key = `${f.functionName || "(anonymous)"}  ${m}:${f.lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      add(total, key, ms);
    }
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top);
  return {
    totalMs: all,
    idleMs: idle,
    byModule: sorted(modules),
    bySelf: sorted(self),
    byTotal: sorted(total),
  };
}
