// A small seeded random source (mulberry32), so every generated input can be replayed from its seed.
export class Rng {
  constructor(seed) {
    this.seed = seed >>> 0;
    this.state = this.seed || 0x9e3779b9;
  }
  next() {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [lo, hi). */
  int(lo, hi) {
    return lo + Math.floor(this.next() * (hi - lo));
  }
  chance(p) {
    return this.next() < p;
  }
  pick(list) {
    return list[this.int(0, list.length)];
  }
  hex8() {
    return this.int(0, 0x1_0000_0000).toString(16).padStart(8, "0");
  }
}

/** The seeds a run uses: `FUZZ_SEED` (default: time-based) and `FUZZ_COUNT` (default `fallback`). */
export function fuzzSettings(fallback) {
  const count = Number(process.env.FUZZ_COUNT ?? fallback);
  const seed = Number(process.env.FUZZ_SEED ?? (Date.now() % 1_000_000_007));
  return { count: Number.isFinite(count) && count > 0 ? Math.floor(count) : fallback, seed };
}
