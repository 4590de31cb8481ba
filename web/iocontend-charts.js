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

  // Draws chart name (a spec file) into parent with the data sets given by name;
  // edit may change the spec first. The view is kept as views[key].
  async function draw(parent, key, name, data, caption, edit) {
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
    box.setAttribute("aria-label", caption + ". " + s.description);
    fig.appendChild(box);
    const cap = document.createElement("figcaption");
    cap.textContent = caption;
    fig.appendChild(cap);
    parent.appendChild(fig);
    const view = new vega.View(vega.parse(s), {renderer: "svg", container: box, hover: true});
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

  function sweep(parent, key, sweeps, caption) {
    return draw(parent, key, "sweep", sweepData(sweeps), caption);
  }

  // Fig. 2: td_histogram of GET .../table.
  function histogram(parent, key, h) {
    const w = h.bin_width_s, bins = h.counts.map((c, i) => ({
      x0: h.first_edge_s + i * w, x1: h.first_edge_s + (i + 1) * w, count: c}));
    const band = [];
    if (typeof h.band_low === "number") band.push({s: h.band_low, label: "mean − 1.645 sd"});
    if (typeof h.band_high === "number") band.push({s: h.band_high, label: "mean + 1.645 sd"});
    return draw(parent, key, "histogram", {bins: bins, band: band},
      "T^D of " + h.n + " jobs, bins of " + w + " s; dashed: mean ± 1.645 sd");
  }

  // The KDE of an association answer: its grid points where all four are defined
  // (and positive in log space, where the axes are logarithmic).
  function band(parent, key, a) {
    const k = a.kde, log = k.space === "log", rows = [];
    for (let i = 0; i < k.x_grid.length; i++) {
      const r = {x: k.x_grid[i], q05: k.q05[i], q50: k.q50[i], q95: k.q95[i]};
      const vals = [r.x, r.q05, r.q50, r.q95];
      if (vals.every(v => typeof v === "number" && isFinite(v) && (!log || v > 0))) rows.push(r);
    }
    return draw(parent, key, "band", {band: rows},
      a.y + " given " + a.x + ": median and 90 % band" + (log ? " (log axes)" : ""),
      s => {
        if (log) s.scales.forEach(sc => { sc.type = "log"; sc.nice = false; });
        s.axes[0].title = a.x;
        s.axes[1].title = a.y;
      });
  }

  // Fig. 13: one file system of GET /coverage, the intervals with a value.
  function coverage(parent, key, f, caption) {
    const rows = [];
    for (const [name, series] of [["servers", f.s], ["jobs", f.d]]) {
      f.end_ms.forEach((t, i) => {
        if (typeof series[i] === "number") rows.push({series: name, t_ms: t, v: series[i]});
      });
    }
    return draw(parent, key, "coverage", {series: rows}, caption);
  }

  return {views: views, draw: draw, sweep: sweep, sweepData: sweepData,
          histogram: histogram, band: band, coverage: coverage, COEFS: COEFS};
});
