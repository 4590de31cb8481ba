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
  // Tick values of a scale's domain d that are round in unit: multiples of 1, 2 or 5
  // of the prefix human() writes (10 min, not 600 s shown as 10 min beside 13.3 min);
  // on a log scale spanning more than a factor of 30, the prefix's powers instead.
  function ticks(d, unit, count, log) {
    const lo = Math.min(d[0], d[d.length - 1]), hi = Math.max(d[0], d[d.length - 1]);
    if (!isFinite(lo) || !isFinite(hi) || hi <= lo) return [lo];
    if (log && lo > 0 && hi / lo > 30) {
      const out = [], base = unit === "B" || unit === "B/s" ? 1024 : 10;
      for (let t = Math.pow(base, Math.ceil(Math.log(lo) / Math.log(base) - 1e-9));
        t <= hi * (1 + 1e-9); t *= base) out.push(t);
      if (out.length >= 3) return out;
      return steps(Math.log10(lo), Math.log10(hi), count).map(e => Math.pow(10, e))
        .filter(t => t >= lo && t <= hi);
    }
    const f = axisFactor(d, unit);
    const out = steps(lo / f, hi / f, count).map(t => t * f);
    return log ? out.filter(t => t > 0) : out;
  }
  // Registered before any spec is parsed: axes and tooltips say "iofmt(value, unit)",
  // tick values "ioticks(domain('x'), unit, count, log)".
  functions.expressionFunction("iofmt", human);
  functions.expressionFunction("ioticks", ticks);

  return {
    parse: parser.parse,
    View: view.View,
    formatLocale: format.formatLocale,
    sceneToJSON: scenegraph.sceneToJSON,
    human: human,
    ticks: ticks
  };
});
