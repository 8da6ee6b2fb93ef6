// The Usage view's logic, without DOM: the range picker's presets, the bars'
// dates, and the chart's geometry (bars stacked by model, the axes' ticks and
// labels). The figures come from the package (`UsageLedger`, through
// ../pkg/cli/serve/usage-data.js); nothing here adds money up.

/** The range picker's presets: `days` back from today, both ends included (null: everything). */
export const PRESETS = [
  { id: "all", label: "All time", days: null },
  { id: "7", label: "Last 7 days", days: 7 },
  { id: "30", label: "Last 30 days", days: 30 },
  { id: "90", label: "Last 90 days", days: 90 },
  { id: "365", label: "Last 365 days", days: 365 },
];

const MS_DAY = 86_400_000;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const dayNumber = (iso) => Date.parse(`${iso}T00:00:00Z`) / MS_DAY;
const isoOf = (n) => new Date(n * MS_DAY).toISOString().slice(0, 10);

/** Whether `s` is a real date `YYYY-MM-DD`. */
export const isDate = (s) => typeof s === "string" && DATE.test(s) && isoOf(dayNumber(s)) === s;

/** Today's date `YYYY-MM-DD` in `timeZone` (default: the host's), at `now`. */
export function today(timeZone, now = Date.now()) {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).formatToParts(now);
  const get = (type) => parts.find((p) => p.type === type)?.value;
  return `${get("year")}-${get("month")}-${get("day")}`;
}

/** `{ since, until }` of a preset id ending `on` (a date), or of the custom dates given. */
export function rangeOf(preset, on, custom = {}) {
  if (preset === "custom") {
    const since = isDate(custom.since) ? custom.since : undefined;
    const until = isDate(custom.until) ? custom.until : undefined;
    // A range given backwards is read the right way round.
    if (since && until && since > until) return { since: until, until: since };
    return { since, until };
  }
  const p = PRESETS.find((x) => x.id === preset);
  if (!p?.days) return { since: undefined, until: undefined };
  return { since: isoOf(dayNumber(on) - (p.days - 1)), until: on };
}

/** The date key of the bar that holds `day` for `unit` (the week's Monday, the month). */
export function barKey(unit, day) {
  if (unit === "month") return day.slice(0, 7);
  if (unit === "week") {
    const n = dayNumber(day);
    // Day 0 (1970-01-01) was a Thursday: Monday is 3 days before it.
    return isoOf(n - ((((n + 3) % 7) + 7) % 7));
  }
  return day;
}

/** Every bar's key from the bar of `from` to the bar of `to`, in order (empty bars included). */
export function barKeys(unit, from, to) {
  if (!isDate(from) || !isDate(to) || from > to) return [];
  const keys = [];
  if (unit === "month") {
    let [y, m] = from.split("-").map(Number);
    const end = to.slice(0, 7);
    for (;;) {
      const key = `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}`;
      if (key > end) break;
      keys.push(key);
      m++;
      if (m > 12) {
        m = 1;
        y++;
      }
    }
    return keys;
  }
  const step = unit === "week" ? 7 : 1;
  const last = dayNumber(barKey(unit, to));
  for (let n = dayNumber(barKey(unit, from)); n <= last; n += step) keys.push(isoOf(n));
  return keys;
}

/** How a bar's key reads on the axis: `Jan 5`, `Jan 2026`; `withYear` adds the year to a day. */
export function barLabel(unit, key, withYear = false) {
  const y = key.slice(0, 4);
  const m = MONTHS[Number(key.slice(5, 7)) - 1];
  if (unit === "month") return `${m} ${y}`;
  const d = String(Number(key.slice(8, 10)));
  return withYear ? `${m} ${d}, ${y}` : `${m} ${d}`;
}

/** A tick step for an axis up to `max`: 1, 2 or 5 times a power of ten, about `count` ticks. */
export function niceStep(max, count = 4) {
  if (!(max > 0)) return 1;
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const f = raw / power;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * power;
}

/** Dollars as the view writes them: `$1,234.56`, `$0.0042` under a cent. */
export function formatCost(n) {
  if (!Number.isFinite(n)) return "–";
  const abs = Math.abs(n);
  const digits = abs > 0 && abs < 0.01 ? 4 : 2;
  const [whole, cents] = abs.toFixed(digits).split(".");
  const text = `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}.${cents}`;
  return `${n < 0 ? "-" : ""}$${text}`;
}

/** Tokens: `950`, `12.3k`, `4.56M`, `1.2B`. */
export function formatTokens(n) {
  if (!Number.isFinite(n)) return "–";
  const abs = Math.abs(n);
  if (abs >= 1e9) return `${(n / 1e9).toFixed(1)}B`;
  if (abs >= 1e6) return `${(n / 1e6).toFixed(2)}M`;
  if (abs >= 1e4) return `${(n / 1e3).toFixed(1)}k`;
  return String(Math.round(n));
}

/**
 * Colour slots of the models: the `slots - 1` most expensive models of the
 * range get one each, in the order the package ranks them (most expensive
 * first); the rest share the last slot ("other models", no cost of its own:
 * the page adds no money up). Returns
 * `{ slotOf(model), legend: [{ label, slot, cost }] }`.
 */
export function modelSlots(models, slots = 8) {
  const own = models.length <= slots ? models.length : slots - 1;
  const at = new Map(models.slice(0, own).map((m, i) => [m.model, i]));
  const legend = models.slice(0, own).map((m, i) => ({ label: m.model, slot: i, cost: m.usage.cost }));
  if (models.length > own) {
    const rest = models.slice(own).map((m) => m.model);
    legend.push({ label: `${rest.length} other models`, slot: slots - 1, cost: null, models: rest });
  }
  return { slotOf: (model) => at.get(model) ?? slots - 1, legend };
}

/**
 * The chart's geometry for a view (usage-data.js): one bar per `unit` from
 * the range's first to its last day (empty ones included), each stacked by
 * model in the legend's order, the most expensive at the bottom. `width` is
 * what the page offers; bars are at least `minBar` px wide, so a long range
 * of days makes the chart wider (it then scrolls) rather than unreadable.
 *
 * Returns `{ width, height, plot: { x, y, w, h }, bars: [{ key, label, x, w,
 * cost, segments: [{ model, slot, y, h, cost }] }], yTicks: [{ y, value }],
 * xTicks: [{ x, label }], legend, undated }`; `undated` is the cost of
 * requests whose time is not a date (never drawn).
 */
export function layoutChart(view, { width = 800, height = 260, minBar = 3, slots = 8 } = {}) {
  const { unit } = view;
  const from = view.since ?? view.first;
  const to = view.until ?? view.last;
  const keys = barKeys(unit, from, to);
  const rows = new Map(view.rows.map((r) => [r.key, r]));
  const { slotOf, legend } = modelSlots(view.models, slots);
  const margin = { left: 64, right: 12, top: 12, bottom: 28 };
  const plotW = Math.max(width - margin.left - margin.right, keys.length * minBar);
  const plot = { x: margin.left, y: margin.top, w: plotW, h: height - margin.top - margin.bottom };
  const max = Math.max(0, ...keys.map((k) => rows.get(k)?.usage.cost ?? 0));
  const step = niceStep(max);
  const top = max > 0 ? Math.ceil(max / step) * step : step;
  const scale = (v) => (v / top) * plot.h;
  const slot = keys.length ? plot.w / keys.length : 0;
  const gap = slot >= 6 ? Math.min(4, slot * 0.2) : 0;
  const bars = keys.map((key, i) => {
    const row = rows.get(key);
    const x = plot.x + i * slot + gap / 2;
    let y = plot.y + plot.h;
    const segments = [];
    // The package lists a row's models most expensive first: drawn bottom up in the legend's order.
    const parts = (row?.models ?? []).map((m) => ({ model: m.model, slot: slotOf(m.model), cost: m.usage.cost }));
    parts.sort((a, b) => a.slot - b.slot);
    for (const p of parts) {
      const h = scale(Math.max(0, p.cost));
      y -= h;
      segments.push({ ...p, y, h });
    }
    return { key, label: barLabel(unit, key, true), x, w: slot - gap, cost: row?.usage.cost ?? 0, segments };
  });
  const yTicks = [];
  for (let v = 0; v <= top + step / 2; v += step) yTicks.push({ y: plot.y + plot.h - scale(v), value: v });
  // Labels at least 84 px apart, on whole bars; the year shown on the first and where it changes.
  const every = Math.max(1, Math.ceil(84 / Math.max(slot, 1e-9)));
  const xTicks = [];
  let year = "";
  for (let i = 0; i < keys.length; i += every) {
    const y4 = keys[i].slice(0, 4);
    xTicks.push({ x: plot.x + (i + 0.5) * slot, label: barLabel(unit, keys[i], y4 !== year) });
    year = y4;
  }
  return {
    width: plot.w + margin.left + margin.right,
    height,
    plot,
    bars,
    yTicks,
    xTicks,
    legend,
    undated: view.rows.find((r) => !/^\d{4}-\d{2}/.test(r.key))?.usage.cost ?? 0,
  };
}
