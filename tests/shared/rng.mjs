// The one seeded random source of the JavaScript suites (mulberry32), and how a run picks its
// seeds: every generated input can be replayed from the seed a failure prints.

/**
 * A seed from environment variable `name` (decimal or 0x hex), else a random one. It is printed
 * either way, so that a run which fails on something other than an assertion naming its seed
 * (a TypeError, a time-out) can still be replayed.
 */
export function envSeed(name) {
  const raw = process.env[name];
  const seed = raw !== undefined && raw !== "" ? Number(raw) >>> 0 : (Math.random() * 2 ** 32) >>> 0;
  console.log(`${name}=${seed} replays this run`);
  return seed;
}

/** A positive case count from environment variable `name`, else `fallback`. */
export function envCount(name, fallback) {
  const count = Number(process.env[name] ?? fallback);
  return Number.isFinite(count) && count > 0 ? Math.floor(count) : fallback;
}

/** The reliability suite's run: `FUZZ_SEED` (default random) and `FUZZ_COUNT` (default `fallback`). */
export function fuzzSettings(fallback) {
  return { count: envCount("FUZZ_COUNT", fallback), seed: envSeed("FUZZ_SEED") };
}

/** The seed of case `index` of a run with `masterSeed` (splitmix-like mixing). */
export function caseSeed(masterSeed, index) {
  let z = (masterSeed >>> 0) ^ Math.imul(index + 1, 0x9e3779b9);
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

export class Rng {
  constructor(seed) {
    this.seed = seed >>> 0;
    this.state = this.seed;
    this.spare = null;
  }
  /** Uniform in [0, 1). */
  next() {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [lo, hi). */
  int(lo, hi) {
    return lo + Math.floor(this.next() * (hi - lo));
  }
  /** An integer in [lo, hi]. */
  range(lo, hi) {
    return this.int(lo, hi + 1);
  }
  chance(p) {
    return this.next() < p;
  }
  pick(list) {
    return list[this.int(0, list.length)];
  }
  /** A weighted pick: `pairs` is [[weight, value], ...]. */
  weighted(pairs) {
    let total = 0;
    for (const [w] of pairs) total += w;
    let r = this.next() * total;
    for (const [w, v] of pairs) {
      r -= w;
      if (r < 0) return v;
    }
    return pairs[pairs.length - 1][1];
  }
  /** `n` hex digits, one draw each. */
  hex(n) {
    let s = "";
    for (let i = 0; i < n; i++) s += "0123456789abcdef"[this.int(0, 16)];
    return s;
  }
  /** 8 hex digits from one 32-bit draw (the shape of pi's entry ids). */
  hex8() {
    return this.int(0, 0x1_0000_0000).toString(16).padStart(8, "0");
  }
  /** A uuidv7-shaped string, like pi's session ids. */
  uuid() {
    return `${this.hex(8)}-${this.hex(4)}-7${this.hex(3)}-${this.pick(["8", "9", "a", "b"])}${this.hex(3)}-${this.hex(12)}`;
  }
  /** `n` characters drawn from `alphabet`. */
  chars(alphabet, n) {
    let s = "";
    for (let i = 0; i < n; i++) s += alphabet[this.int(0, alphabet.length)];
    return s;
  }
  /** Standard normal (Box-Muller; the second value of a pair is kept for the next call). */
  normal() {
    if (this.spare !== null) {
      const s = this.spare;
      this.spare = null;
      return s;
    }
    let u = 0;
    while (u === 0) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }
  /** Log-normal with the given median, clamped to [min, max], rounded. */
  size(median, sigma, min = 1, max = 1e9) {
    const x = Math.round(median * Math.exp(sigma * this.normal()));
    return Math.max(min, Math.min(max, x));
  }
}
