// iocontend-charts.js: the charts of the page and of `iocontend report`, drawn with
// Vega from the specifications in this folder (*.vg.json) and the API's JSON. The
// page fetches the specifications; a report carries them inline
// (window.iocontendSpecs). Every view drawn is kept in window.iocontendViews under
// its name, so that a test or a curious reader can ask it for its data sets.
define("iocontend-charts", ["iocontend-vega"], function (vega) {
  "use strict";
  const views = window.iocontendViews = window.iocontendViews || {};

  async function spec(name) {
    const inline = window.iocontendSpecs;
    if (inline && inline[name]) return JSON.parse(JSON.stringify(inline[name]));
    const r = await fetch((window.iocontendRoot || "") + "web/" + name + ".vg.json");
    if (!r.ok) throw new Error("chart " + name + ": HTTP " + r.status);
    return r.json();
  }

  // The unit of a metric of docs/method.md, as iofmt() (iocontend-vega.js) writes it:
  // times in seconds, volumes in bytes, Ψ^O in operations, B in bytes per second.
  function unitOf(metric) {
    const m = String(metric || "");
    if (/^t_/.test(m) || m === "await_d") return "s";
    if (/^psi_o_/.test(m)) return "ops";
    if (/^(psi|nu|eta)_/.test(m)) return "B";
    if (/^b_/.test(m)) return "B/s";
    if (m === "tau") return "s/GiB";
    return "";
  }

  // The largest width a chart of the page may take: its section less the axes.
  function room(parent, wanted) {
    const w = parent && parent.clientWidth ? parent.clientWidth - 110 : wanted;
    return Math.max(240, Math.min(wanted, w));
  }

  // Draws chart name (a spec file) into parent with the data sets given by name;
  // edit may change the spec first. The view is kept as views[key]. A view already
  // drawn under key (a second run of the page) is finalized first.
  async function draw(parent, key, name, data, caption, edit, renderer) {
    const s = await spec(name);
    for (const d of s.data) {
      if (Object.prototype.hasOwnProperty.call(data, d.name)) d.values = data[d.name];
    }
    if (edit) edit(s);
    const fig = document.createElement("figure");
    fig.className = "chart " + name;
    fig.dataset.chart = key;
    const box = document.createElement("div");
    box.setAttribute("role", "img");
    box.setAttribute("tabindex", "0");
    box.setAttribute("aria-label", caption + ". " + s.description);
    fig.appendChild(box);
    const cap = document.createElement("figcaption");
    cap.textContent = caption;
    fig.appendChild(cap);
    parent.appendChild(fig);
    if (views[key]) views[key].finalize();
    const view = new vega.View(vega.parse(s),
      {renderer: renderer || "svg", container: box, hover: true});
    views[key] = view;
    await view.runAsync();
    return view;
  }

  // The coefficients the sweep watches (analysis_coefs[].watched), the chart's options.
  const COEFS = ["pearson", "spearman", "dcor_v", "mi_linfoot"];

  // The stored sweep objects (as GET .../sweep answers them) as the chart's rows: one
  // per pair, k and coefficient; the recommended interval of each pair that has one.
  function sweepData(sweeps) {
    const steps = [], recommended = [];
    for (const s of sweeps) {
      const pair = s.y + " ~ " + s.x;
      for (const p of s.steps) {
        for (const c of COEFS) {
          steps.push({pair: pair, k: p.k, granularity_s: p.granularity_s, coef: c,
                      value: p[c] === undefined ? null : p[c]});
        }
      }
      const v = s.verdicts || {};
      if (typeof v.recommended_interval_s === "number") {
        recommended.push({pair: pair, interval_s: v.recommended_interval_s});
      }
    }
    return {steps: steps, recommended: recommended};
  }

  // Vega's category10, then ten more of other hues and darkness: Vega's ten alone
  // repeated from the eleventh pair (the lab's tau ~ q_d took t_d ~ psi_d_read's blue).
  const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
    "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#393b79", "#e7ba52",
    "#637939", "#843c39", "#7b4173", "#5254a3", "#b5cf6b", "#ad494a", "#de9ed6"];
  // n colours, no two the same: the palette's first n, and past its 20, hues spread
  // evenly around the circle at two lightnesses.
  function palette(n) {
    if (n <= PALETTE.length) return PALETTE.slice(0, n);
    const out = [];
    for (let i = 0; i < n; i++) {
      out.push("hsl(" + (i * 360 / n).toFixed(2) + ", 70%, " + (i % 2 ? 30 : 50) + "%)");
    }
    return out;
  }

  function sweep(parent, key, sweeps, caption) {
    const data = sweepData(sweeps);
    const pairs = [...new Set(sweeps.map(s => s.y + " ~ " + s.x))].sort();
    return draw(parent, key, "sweep", data, caption, s => {
      const colour = s.scales.find(sc => sc.name === "colour");
      colour.domain = pairs;
      colour.range = palette(pairs.length);
    });
  }

  // Fig. 2: td_histogram of GET .../table.
  function histogram(parent, key, h) {
    const w = h.bin_width_s, bins = h.counts.map((c, i) => ({
      x0: h.first_edge_s + i * w, x1: h.first_edge_s + (i + 1) * w, count: c}));
    const band = [];
    if (typeof h.band_low === "number") band.push({s: h.band_low, label: "mean − 1.645 sd"});
    if (typeof h.band_high === "number") band.push({s: h.band_high, label: "mean + 1.645 sd"});
    return draw(parent, key, "histogram", {bins: bins, band: band},
      "T^D of " + h.n + " jobs, bins of " + vega.human(w, "s") +
      "; dashed: mean ± 1.645 sd", s => { s.width = room(parent, s.width); });
  }

  function usable(v, log) {
    return typeof v === "number" && isFinite(v) && (!log || v > 0);
  }

  // The KDE of an association answer as the band's rows: its grid points where all
  // four are defined (and positive in log space, where the axes are logarithmic).
  function bandRows(a) {
    const k = a.kde, log = k && k.space === "log", rows = [];
    for (let i = 0; k && Array.isArray(k.x_grid) && i < k.x_grid.length; i++) {
      const r = {x: k.x_grid[i], q05: k.q05[i], q50: k.q50[i], q95: k.q95[i]};
      if ([r.x, r.q05, r.q50, r.q95].every(v => usable(v, log))) rows.push(r);
    }
    return rows;
  }

  // The forest of an association answer (its x_grid and fit), [] without one.
  function forestRows(a) {
    const f = a.rf, log = a.kde && a.kde.space === "log", rows = [];
    for (let i = 0; f && Array.isArray(f.x_grid) && i < f.x_grid.length; i++) {
      if (usable(f.x_grid[i], log) && usable(f.fit[i], log)) {
        rows.push({x: f.x_grid[i], fit: f.fit[i]});
      }
    }
    return rows;
  }

  // Fig. 5-7: the jobs of GET .../points with the band and the forest of the
  // association a of the same pair; log axes where the KDE was fitted in log space.
  function scatter(parent, key, p, a) {
    const log = a.kde && a.kde.space === "log";
    const points = p.points.filter(r => usable(r.x, log) && usable(r.y, log)).map(r =>
      ({id: r.id, jobid: r.jobid, x: r.x, y: r.y}));
    /* the forest's fit only where it beats the mean out of bag: at an OOB R² of -0.55
     * its jagged steps say nothing and hide the band */
    const r2 = a.rf && typeof a.rf.oob_r2 === "number" ? a.rf.oob_r2 : null;
    const forest = r2 !== null && r2 > 0 ? forestRows(a) : [];
    const fitName = "forest's fit (OOB R² " + (r2 !== null ? r2.toFixed(2) : "—") + ")";
    const dropped = p.shown - points.length; /* not positive, on log axes */
    const shown = (p.sampled ? "showing " + p.shown.toLocaleString("en") + " of " +
      p.d.toLocaleString("en") + " jobs (a sample, seed " + p.seed + ")"
      : p.shown.toLocaleString("en") + " jobs") +
      (dropped > 0 ? ", " + dropped.toLocaleString("en") + " of them not drawn (zero, " +
       "off the log axes)" : "");
    return draw(parent, key, "scatter", {points: points, band: bandRows(a), forest: forest},
      p.y + " against " + p.x + ": " + shown + "; the KDE's median and 90 % band" +
      (forest.length > 0 ? ", the " + fitName : r2 !== null ? "; the forest's fit not " +
        "drawn: its OOB R² " + r2.toFixed(2) + " is no better than the mean's 0" : "") +
      (log ? "; log axes" : ""),
      s => {
        s.width = room(parent, s.width);
        if (log) s.scales.slice(0, 2).forEach(sc => { sc.type = "log"; });
        const set = (name, v) => { s.signals.find(g => g.name === name).value = v; };
        set("log", log);
        set("xunit", unitOf(p.x));
        set("yunit", unitOf(p.y));
        set("xtitle", p.x);
        set("ytitle", p.y);
        const what = s.scales.find(sc => sc.name === "what");
        if (forest.length === 0) {
          what.domain = what.domain.slice(0, 3);
          what.range = what.range.slice(0, 3);
        } else { /* the legend says how good the fit is */
          what.domain[3] = fitName;
          s.marks.find(m => m.from && m.from.data === "forest").encode.enter.stroke.value =
            fitName;
        }
      }, points.length > 4000 ? "canvas" : "svg"); /* 20,000 SVG nodes are slow */
  }

  // One file system of GET /coverage?points=N as rows, one per bucket.
  function bucketRows(f) {
    const b = f.buckets, rows = [];
    for (let i = 0; b && i < b.start_ms.length; i++) {
      rows.push({start_ms: b.start_ms[i], end_ms: b.end_ms[i], d_min: b.d_min[i],
                 d_max: b.d_max[i], s_min: b.s_min[i], s_max: b.s_max[i]});
    }
    return rows;
  }

  // Fig. 13: one file system of GET /coverage?points=N, with an overview of the whole
  // range below; a drag across the overview calls zoom(from_ms, to_ms) (null, null:
  // the whole range again), which answers the rows to show.
  async function coverage(parent, key, f, caption, zoom) {
    const rows = bucketRows(f);
    const view = await draw(parent, key, "coverage", {buckets: rows, overview: rows},
      caption, s => { s.width = coverageWidth(parent); });
    let asked = 0;
    // view.zoomed settles once the last range asked for is drawn (a test awaits it)
    view.zoomed = Promise.resolve();
    view.addSignalListener("range", (name, r) => {
      const mine = ++asked;
      view.zoomed = (async () => {
        const got = await zoom(r ? r[0] : null, r ? r[1] : null);
        if (mine !== asked || !got) return; /* a later drag won */
        view.data("buckets", got);
        await view.runAsync();
      })();
    });
    return view;
  }

  // The coverage chart's plot width for parent: the points= it asks for.
  function coverageWidth(parent) {
    return room(parent, 1100);
  }

  return {views: views, draw: draw, sweep: sweep, sweepData: sweepData,
          histogram: histogram, scatter: scatter, bandRows: bandRows,
          forestRows: forestRows, coverage: coverage, coverageWidth: coverageWidth,
          bucketRows: bucketRows, unitOf: unitOf, human: vega.human, ticks: vega.ticks,
          counts: vega.counts, time: vega.time, palette: palette, COEFS: COEFS};
});
