// iocontend-vega.js: Vega assembled from Debian's per-package files (libjs-vega ships
// no single bundle): the transforms registered as Vega's own index does, the few
// entry points the charts use, and our units as expression functions. An AMD module,
// loaded through require.js.
define("iocontend-vega", ["vega-util", "vega-dataflow", "vega-transforms",
  "vega-view-transforms", "vega-encode", "vega-parser", "vega-view", "vega-scenegraph",
  "vega-format", "vega-functions"],
function (util, dataflow, transforms, viewTransforms, encode, parser, view, scenegraph,
  format, functions) {
  "use strict";
  // Vega's index.js extends the dataflow's registry with every transform package;
  // these three hold all the transforms a chart of ours names.
  util.extend(dataflow.transforms, transforms, viewTransforms, encode);

  // v with at most 3 significant digits, no exponent below 10^21, no trailing zeros.
  function short(v) {
    return String(Number(v.toPrecision(3)));
  }
  const BINARY = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
  const DECIMAL = ["", "k", "M", "G", "T", "P", "E"];

  // v as a person reads it in unit: bytes ("B", "B/s") with binary prefixes, seconds
  // ("s") as s, min or h, other units with SI prefixes; "" for no number. The prefix
  // is v's own, or with ref (a scale's domain) the axis's (axisFactor), so that an
  // axis writes all its ticks in one.
  function human(v, unit, ref) {
    if (typeof v !== "number" || !isFinite(v)) return "";
    const f = Array.isArray(ref) ? axisFactor(ref, unit) : factor(v, unit);
    const text = short(v / f);
    if (unit === "B" || unit === "B/s") {
      return text + " " + BINARY[Math.round(Math.log(f) / Math.log(1024))] +
        (unit === "B/s" ? "/s" : "");
    }
    if (unit === "s") return text + (f === 3600 ? " h" : f === 60 ? " min" : " s");
    const si = text + DECIMAL[Math.round(Math.log10(f) / 3)];
    return unit ? si + " " + unit : si;
  }
  // The factor of the prefix human() would write for v in unit (1024^i, 60, 3600).
  function factor(v, unit) {
    const a = Math.abs(v);
    if (unit === "B" || unit === "B/s") {
      let f = 1;
      while (a >= f * 1024 && f < Math.pow(1024, BINARY.length - 1)) f *= 1024;
      return f;
    }
    if (unit === "s") return a >= 3600 ? 3600 : (a >= 60 ? 60 : 1);
    let f = 1;
    while (a >= f * 1000 && f < Math.pow(1000, DECIMAL.length - 1)) f *= 1000;
    return f;
  }
  // The step of steps(lo, hi, count).
  function stepOf(lo, hi, count) {
    const raw = (hi - lo) / Math.max(1, count), p = Math.pow(10, Math.floor(Math.log10(raw)));
    return [1, 2, 5, 10].map(m => m * p).find(s => s >= raw) || 10 * p;
  }
  // The prefix an axis over domain d writes its ticks in: the largest whose tick step
  // is a whole number of it (10 min steps, not 0.167 h; 200 GiB, not 0.195 TiB).
  function axisFactor(d, unit) {
    const lo = Math.min(d[0], d[d.length - 1]), hi = Math.max(d[0], d[d.length - 1]);
    let f = factor(Math.max(Math.abs(lo), Math.abs(hi)), unit);
    if (!isFinite(lo) || !isFinite(hi) || hi <= lo) return f;
    const smaller = unit === "s" ? {3600: 60, 60: 1} : null;
    const base = unit === "B" || unit === "B/s" ? 1024 : 1000;
    while (f > 1 && stepOf(lo / f, hi / f, 6) < 1) f = smaller ? smaller[f] : f / base;
    return f;
  }
  // Nice steps (1, 2, 5 times a power of ten) of [lo, hi] in about count steps.
  function steps(lo, hi, count) {
    const step = stepOf(lo, hi, count);
    const out = [];
    for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) {
      out.push(Math.abs(t) < step * 1e-9 ? 0 : Number(t.toPrecision(12)));
    }
    return out;
  }
  // The prefixes human() writes in unit, ascending: 1024^i for bytes, s / min / h for
  // seconds, 1000^i otherwise.
  function prefixes(unit) {
    if (unit === "B" || unit === "B/s") return BINARY.map((p, i) => Math.pow(1024, i));
    if (unit === "s") return [1, 60, 3600];
    return DECIMAL.map((p, i) => Math.pow(1000, i));
  }
  // Log-axis ticks in [lo, hi] at 1, 2 and 5 times a power of ten of each prefix (1 MiB,
  // 2 MiB, 5 MiB, 10 MiB, ..., 500 MiB, 1 GiB: never 977 KiB or 9.54 MiB), thinned
  // to 1 times (1, 10, 100 MiB), then to the prefixes alone (1 KiB, 1 MiB, 1 GiB),
  // then to every other one, until at most count + 3 remain; [] when fewer than 2 fall
  // in the range.
  function logTicks(lo, hi, unit, count) {
    const p = prefixes(unit), levels = [[1, 2, 5], [1], null];
    for (const ms of levels) {
      const out = [];
      for (let i = 0; i < p.length; i++) {
        const top = i + 1 < p.length ? p[i + 1] : Infinity;
        if (ms === null) { /* the prefixes alone; below the first, its powers of ten */
          if (p[i] >= lo * (1 - 1e-9) && p[i] <= hi * (1 + 1e-9)) out.push(p[i]);
          continue;
        }
        const e0 = i === 0 ? Math.floor(Math.log10(lo / p[i])) - 1 : 0;
        for (let e = e0; ; e++) {
          const ten = Math.pow(10, e) * p[i];
          if (ten >= top * (1 - 1e-9) || ten > hi * 10) break;
          for (const m of ms) {
            const t = Number((m * ten).toPrecision(12));
            const below = m * Math.pow(10, e) < 1000 || top === Infinity; /* not 1000 KiB */
            if (below && t < top * (1 - 1e-9) && t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)) {
              out.push(t);
            }
          }
        }
      }
      if (out.length < 2) return [];
      if (out.length <= count + 3) return out;
      if (ms === null) {
        const every = Math.ceil(out.length / (count + 3));
        return out.filter((t, i) => i % every === 0);
      }
    }
    return [];
  }
  // Tick values of a scale's domain d that are round in unit: multiples of 1, 2 or 5
  // of the prefix human() writes (10 min, not 600 s shown as 10 min beside 13.3 min);
  // on a log scale, 1, 2 and 5 times a power of ten of a prefix (logTicks), or the
  // linear ones above 0 where fewer than two of those fall in the domain.
  function ticks(d, unit, count, log) {
    const lo = Math.min(d[0], d[d.length - 1]), hi = Math.max(d[0], d[d.length - 1]);
    if (!isFinite(lo) || !isFinite(hi) || hi <= lo) return [lo];
    if (log && lo > 0) {
      const out = logTicks(lo, hi, unit, count);
      if (out.length >= 2) return out;
    }
    /* a log axis writes each label in its own prefix (the 1-2-5 ticks span several) */
    const f = log ? factor(hi, unit) : axisFactor(d, unit);
    const out = steps(lo / f, hi / f, count).map(t => t * f);
    return log ? out.filter(t => t > 0) : out;
  }
  // Whole-number ticks of a count axis over domain d: steps of 1, 2, 5, 10... never
  // below 1 (0, 1, 2, 3, not 0, 0.5, 1, 1.5 written 0, 1, 1, 2).
  function counts(d, count) {
    const lo = Math.min(d[0], d[d.length - 1]), hi = Math.max(d[0], d[d.length - 1]);
    if (!isFinite(lo) || !isFinite(hi) || hi <= lo) return [Math.round(lo) || 0];
    const step = Math.max(1, stepOf(lo, hi, count));
    const out = [];
    for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-9; t += step) out.push(t);
    return out;
  }
  const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
    "Nov", "Dec"];
  const two = n => (n < 10 ? "0" : "") + n;
  // A time axis's label of ms (epoch milliseconds or a Date) in 24-hour UTC, as precise as the
  // ticks of domain d in about count steps need: "13:02:30" below a minute's step,
  // "13:02" below a day's, the date ("Nov 22") at midnight and from a day's step up.
  function time(ms, d, count) {
    const v = ms instanceof Date ? ms.getTime() : ms; /* a utc scale's ticks are Dates */
    if (typeof v !== "number" || !isFinite(v)) return "";
    const t = new Date(v);
    const span = Array.isArray(d) ? Math.abs(Number(d[d.length - 1]) - Number(d[0])) : 0;
    const step = span / Math.max(1, count || 8);
    const date = MONTHS[t.getUTCMonth()] + " " + t.getUTCDate();
    const midnight = t.getUTCHours() === 0 && t.getUTCMinutes() === 0 &&
      t.getUTCSeconds() === 0 && t.getUTCMilliseconds() === 0;
    if (step >= 86400e3 || (midnight && step >= 60e3)) return date;
    const hm = two(t.getUTCHours()) + ":" + two(t.getUTCMinutes());
    if (step >= 60e3) return hm;
    const sec = hm + ":" + two(t.getUTCSeconds());
    return step >= 1e3 || t.getUTCMilliseconds() === 0 ? sec :
      sec + "." + String(t.getUTCMilliseconds()).padStart(3, "0");
  }
  // Registered before any spec is parsed: axes and tooltips say "iofmt(value, unit)",
  // tick values "ioticks(domain('x'), unit, count, log)", a count axis's
  // "iocounts(domain('y'), count)", a time axis's labels "iotime(datum.value,
  // domain('x'), count)".
  functions.expressionFunction("iofmt", human);
  functions.expressionFunction("ioticks", ticks);
  functions.expressionFunction("iocounts", counts);
  functions.expressionFunction("iotime", time);

  return {
    parse: parser.parse,
    View: view.View,
    formatLocale: format.formatLocale,
    sceneToJSON: scenegraph.sceneToJSON,
    human: human,
    ticks: ticks,
    counts: counts,
    time: time
  };
});
