// iocontend-page.js: the dashboard page's script (web/index.html), a file of its own
// so that the page's Content-Security-Policy needs no inline script.
"use strict";
function cell(row, text, cls, value) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  // the number behind the text, as JavaScript writes it back (a test reads it)
  if (typeof value === "number") td.dataset.value = String(value);
  row.appendChild(td);
  return td;
}
function coef(v) { return v === null || v === undefined ? "—" : v.toFixed(3); }
function note(parent, text) {
  const p = document.createElement("p");
  p.className = "null";
  p.textContent = text;
  parent.appendChild(p);
}
// A failed request or chart, in place of the chart key.
function failed(parent, key, text) {
  const p = document.createElement("p");
  p.className = "error";
  p.dataset.chart = key;
  p.textContent = text;
  parent.appendChild(p);
}
function el(tag, parent, text) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
// The page is served at / and under /web/; the API and the library sit beside it.
const ROOT = window.iocontendRoot = /\/web\/[^/]*$/.test(location.pathname) ? "../" : "";
const API = ROOT + "api/v1/";
const TOKEN_KEY = "iocontend-token";

// Vega, from Debian's libjs-vega as serve answers it under /lib/: one AMD file per
// package, loaded by Debian's require.js (web/vega-modules.json names them), and
// assembled by web/iocontend-vega.js.
function loadCharts() {
  return new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = ROOT + "lib/requirejs/require.js";
    s.onerror = () => reject(new Error("no " + s.src + " (Debian's libjs-requirejs)"));
    s.onload = async () => {
      try {
        const r = await fetch(ROOT + "web/vega-modules.json");
        if (!r.ok) throw new Error("web/vega-modules.json: HTTP " + r.status);
        const paths = {};
        for (const [name, file] of Object.entries((await r.json()).modules)) {
          paths[name] = ROOT + "lib/" + file;
        }
        paths["iocontend-vega"] = ROOT + "web/iocontend-vega";
        paths["iocontend-charts"] = ROOT + "web/iocontend-charts";
        window.requirejs.config({paths: paths, waitSeconds: 30});
        window.requirejs(["iocontend-charts"], resolve, reject);
      } catch (e) {
        reject(e);
      }
    };
    document.head.appendChild(s);
  });
}
const chartsReady = loadCharts();
chartsReady.catch(() => {}); /* main() reports it */

// The pairs analyze --sweep stores (analysis/sweep.c), for a server whose group list
// does not say which it stored.
const SWEEP_PAIRS = [["t_d", "psi_d_read"], ["t_d", "psi_d_write"], ["t_um", "psi_o_read"],
  ["t_um", "psi_o_write"], ["t_i", "psi_i_read"], ["t_i", "psi_i_write"], ["tau", "b_d"],
  ["t_d", "q_d"], ["tau", "q_d"]];

function token() {
  try { return sessionStorage.getItem(TOKEN_KEY) || ""; } catch (e) { return ""; }
}

// GET url of the API with the token: {ok, status, body, why}, why the API's message.
async function json(url) {
  const headers = {};
  if (token()) headers.Authorization = "Bearer " + token();
  let r;
  try {
    r = await fetch(url, {headers: headers});
  } catch (e) {
    return {ok: false, status: 0, body: {}, why: "the API did not answer: " + e.message};
  }
  const body = await r.json().catch(() => ({}));
  const msg = body && body.error && body.error.message ? body.error.message : "HTTP " + r.status;
  return {ok: r.ok, status: r.status, body: body,
    why: r.ok ? "" : "the API answered " + r.status + ": " + msg};
}

// Runs draw(), showing what failed in place of chart key: one chart failing never
// stops the others.
async function guarded(parent, key, draw) {
  try {
    await draw();
  } catch (e) {
    failed(parent, key, "chart " + key + " failed: " + (e && e.message ? e.message : e));
  }
}

const fmt = {units: null};
// v in the unit of metric m, as the axes write it.
function human(v, m) {
  return typeof v === "number" && fmt.units ? fmt.units.human(v, fmt.units.unitOf(m)) :
    (typeof v === "number" ? String(v) : "—");
}
function pvalue(p) {
  return typeof p !== "number" ? "—" : (p >= 0.001 ? p.toFixed(3) : p.toExponential(1));
}

// The association's coefficients with their significance (stored by analyze).
function coefficients(box, g, a) {
  const fig = el("figure", box);
  fig.className = "coefficients";
  fig.dataset.table = g.id + "/coefficients";
  const t = el("table", fig);
  t.className = "coefficients";
  const sig = a.significance;
  el("caption", t, a.y + " ~ " + a.x + ", d = " + a.d + (sig ?
    ": p-value of a permutation test (" + sig.permutations + " permutations, seed " +
    sig.seed + "), noise floor (95th percentile of |T*|), BCa interval (" +
    sig.resamples + " resamples)" :
    ": p-values, noise floors and intervals not computed (iocontend analyze " +
    "--permutations B stores them)"));
  const head = el("tr", el("thead", t));
  for (const [h, c] of [["coefficient"], ["value", "num"], ["p-value", "num"],
    ["noise floor", "num"], ["95 % interval", "num"]]) {
    const th = el("th", head, h);
    th.scope = "col";
    if (c) th.className = c;
  }
  const body = el("tbody", t);
  const rows = [["pearson", a.pearson], ["spearman", a.spearman], ["dcor_v", a.dcor_v],
    ["mi_linfoot", a.mi_linfoot], ["width_ratio", a.kde ? a.kde.width_ratio : null]];
  for (const [name, v] of rows) {
    const row = el("tr", body);
    row.dataset.coef = name;
    cell(row, name);
    cell(row, coef(v), "num", v);
    const s = sig && sig[name];
    if (!s) {
      cell(row, "not computed", "num null");
      cell(row, "", "num");
      cell(row, "", "num");
      continue;
    }
    cell(row, s.reason && typeof s.p_value !== "number" ? s.reason : pvalue(s.p_value),
      "num", s.p_value);
    cell(row, coef(s.noise_floor), "num", s.noise_floor);
    const ci = cell(row, typeof s.ci_low === "number" && typeof s.ci_high === "number" ?
      coef(s.ci_low) + " to " + coef(s.ci_high) : "—", "num");
    if (typeof s.ci_low === "number") ci.dataset.low = String(s.ci_low);
    if (typeof s.ci_high === "number") ci.dataset.high = String(s.ci_high);
  }
}

// Which sweeps group g has stored: its list's stored.sweeps, else every pair tried.
function storedSweeps(g) {
  if (g.stored && Array.isArray(g.stored.sweeps)) return g.stored.sweeps.map(s => [s.y, s.x]);
  return null;
}

// Group g's charts (assoc its association answer) as a section of parent.
async function details(charts, g, assoc, parent) {
  const sec = el("section", parent);
  sec.className = "detail";
  sec.dataset.group = g.id;
  sec.setAttribute("aria-label", "group " + g.name);
  el("h2", sec, g.name + " (" + g.jobs + " jobs)");
  const box = el("div", sec);
  box.className = "charts";
  const a = assoc.ok ? assoc.body : null;
  if (a) coefficients(box, g, a);
  else failed(box, g.id + "/coefficients", assoc.why);

  // Fig. 2: asked for only when the list says a table is stored (or does not say).
  await guarded(box, g.id + "/histogram", async () => {
    if (g.stored && g.stored.table === false) {
      note(box, "no T^D histogram stored yet (iocontend analyze stores it)");
      return;
    }
    const table = await json(API + "groups/" + g.id + "/table");
    if (!table.ok) failed(box, g.id + "/histogram", table.why);
    else await charts.histogram(box, g.id + "/histogram", table.body.td_histogram);
  });

  // Fig. 5-7: the jobs, the KDE's band and the forest of the same pair.
  await guarded(box, g.id + "/scatter", async () => {
    if (!a) return; /* its association failed: said above */
    const p = await json(API + "groups/" + g.id + "/points?y=" + a.y + "&x=" + a.x);
    if (!p.ok) failed(box, g.id + "/scatter", p.why);
    else await charts.scatter(box, g.id + "/scatter", p.body, a);
  });

  // Fig. 9-12: every stored pair.
  await guarded(box, g.id + "/sweep", async () => {
    const listed = storedSweeps(g);
    if (listed && listed.length === 0) {
      note(box, "no sweep stored yet (iocontend analyze --sweep stores it)");
      return;
    }
    const answers = await Promise.all((listed || SWEEP_PAIRS).map(([y, x]) =>
      json(API + "groups/" + g.id + "/sweep?y=" + y + "&x=" + x)));
    const bad = listed ? answers.find(s => !s.ok) : null;
    const sweeps = answers.filter(s => s.ok).map(s => s.body);
    if (bad) {
      failed(box, g.id + "/sweep", bad.why);
    } else if (sweeps.length > 0) {
      const rec = sweeps[0].verdicts && sweeps[0].verdicts.recommended_interval_s;
      await charts.sweep(box, g.id + "/sweep", sweeps, "the coefficients of " +
        sweeps.length + " stored pairs over the sampling interval (dashed: each " +
        "pair's recommended interval)" + (typeof rec === "number" ? "; recommended for " +
        sweeps[0].y + " ~ " + sweeps[0].x + ": " + charts.human(rec, "s") : ""));
    } else {
      note(box, "no sweep stored (iocontend analyze --sweep stores it): " + answers[0].why);
    }
  });
}

// Fig. 13 over all file systems, cut on the server into as many buckets as the plot
// has pixels; a drag on its overview asks for the range dragged.
async function coverage(charts, parent) {
  const points = charts.coverageWidth(parent);
  let step_ms = 0; /* the intervals' length: a zoomed range asks for no more buckets */
  const ask = (from, to) => {
    const n = from === null || !(step_ms > 0) ? points :
      Math.max(1, Math.min(points, Math.ceil((to - from) / step_ms)));
    return json(API + "coverage?fs=all&points=" + n + (from !== null ?
      "&from=" + Math.floor(from) + "&to=" + Math.ceil(to) : "")).then(r => (r.n = n, r));
  };
  const c = await ask(null, null);
  if (!c.ok) {
    failed(parent, "coverage", c.why);
    return;
  }
  const f = c.body.filesystems && c.body.filesystems[0];
  if (!f || !f.buckets) {
    failed(parent, "coverage", "no coverage buckets in the API's answer");
    return;
  }
  step_ms = 1000 * f.granularity_s;
  const cov = f.range && typeof f.range.coverage === "number" ? f.range.coverage.toFixed(3) : "—";
  let fig = null;
  const zoom = async (from, to) => {
    if (from !== null) { /* whole ms, and at least one: a click-sized drag */
      from = Math.floor(from);
      to = Math.max(Math.ceil(to), from + 1);
    }
    const z = await ask(from, to);
    const zf = z.ok && z.body.filesystems && z.body.filesystems[0];
    if (!zf || !zf.buckets) {
      failed(parent, "coverage", "zoom: " + (z.ok ? "no coverage buckets in the API's answer" : z.why));
      return null;
    }
    // the range drawn, as asked for (a test asks the API the same)
    fig.dataset.points = String(z.n);
    if (from !== null) {
      fig.dataset.from = String(Math.floor(from));
      fig.dataset.to = String(Math.ceil(to));
    } else {
      delete fig.dataset.from;
      delete fig.dataset.to;
    }
    return charts.bucketRows(zf);
  };
  /* the server cuts no bucket shorter than an interval: fewer than asked, for a short
   * range */
  const view = await charts.coverage(parent, "coverage", f, "servers' bytes (grey) and " +
    "the jobs' (blue) per " + charts.human(f.granularity_s, "s") + " interval, each scaled " +
    "to its largest, " + f.buckets.n + " buckets of " +
    charts.human(f.buckets.width_ms / 1000, "s") +
    "; coverage " + cov + ". Drag across the overview to zoom; click it to see all", zoom);
  fig = view.container().parentNode;
  fig.dataset.points = String(points);
}

// Who got hurt (GET /slowdowns): the ranking, as a table.
async function hurt(groups) {
  const box = document.getElementById("hurt-body");
  const s = await json(API + "slowdowns?limit=20");
  if (!s.ok) {
    failed(box, "slowdowns", s.why);
    return;
  }
  const names = new Map(groups.map(g => [g.id, g.name]));
  const d = s.body;
  const t = el("table", box);
  t.id = "slowdowns";
  el("caption", t, d.slowdowns.length + " of " + d.ranked_total + " ranked jobs (of " +
    d.jobs + "; " + d.apart_total + " set apart) by " + d.y + " over the median " +
    "expected at their " + d.x + ". F(y|x): the share of the group's KDE at the job's " +
    d.x + " below its " + d.y + ". percentile: the same F at " + d.y + " moved by a " +
    "random draw from the job's own kernel (a randomized PIT), which spreads jobs of " +
    "one tied " + d.y + " apart; uniform over a group whose jobs follow their KDE, so " +
    "a job above the band's 95 % may read less than 95 %");
  const head = el("tr", el("thead", t));
  for (const [h, c] of [["rank", "num"], ["job"], ["group"], [d.y, "num"],
    ["expected median", "num"], ["expected 95 %", "num"], ["ratio", "num"],
    ["percentile", "num"], ["F(y|x)", "num"]]) {
    const th = el("th", head, h);
    th.scope = "col";
    if (c) th.className = c;
  }
  const body = el("tbody", t);
  for (const j of d.slowdowns) {
    const row = el("tr", body);
    row.dataset.job = j.id;
    cell(row, String(j.rank), "num", j.rank);
    cell(row, j.jobid).title = j.id + ", " + j.start + " to " + j.end;
    cell(row, names.get(j.group) || j.group);
    cell(row, human(j.y, d.y), "num", j.y);
    cell(row, human(j.q50, d.y), "num", j.q50);
    cell(row, human(j.q95, d.y), "num", j.q95);
    cell(row, typeof j.ratio === "number" ? j.ratio.toFixed(2) : "—", "num", j.ratio);
    cell(row, typeof j.percentile === "number" ? (100 * j.percentile).toFixed(1) + " %" : "—",
      "num", j.percentile);
    cell(row, typeof j.cdf === "number" ? (100 * j.cdf).toFixed(1) + " %" : "—", "num", j.cdf);
  }
}

// What to expect at this load (GET /groups/{id}/predict): the band and the forest at
// the x typed, first at the middle of the first group's KDE grid.
const predictState = {assoc: new Map()};
async function predict() {
  const box = document.getElementById("predict-body");
  const id = document.getElementById("predict-group").value;
  const raw = document.getElementById("predict-x").value.trim();
  box.textContent = "";
  const x = Number(raw);
  if (raw === "" || !isFinite(x)) {
    failed(box, "predict", "expected a number for x, got \"" + raw + "\"");
    return;
  }
  const a = predictState.assoc.get(id) || {y: "t_d", x: "psi_d_read"};
  const p = await json(API + "groups/" + id + "/predict?y=" + a.y + "&x=" + a.x +
    "&x_value=" + encodeURIComponent(raw));
  if (!p.ok) {
    failed(box, "predict", p.why);
    return;
  }
  const r = p.body;
  const t = el("table", box);
  t.id = "prediction";
  t.dataset.group = id;
  t.dataset.xValue = String(x);
  el("caption", t, r.y + " expected of a job of this group at " + r.x + " = " +
    human(r.x_value, r.x) + " (d = " + r.d + ", KDE in " + r.space + " space" +
    (r.reason ? "; " + r.reason : "") + ")");
  const head = el("tr", el("thead", t));
  for (const h of ["5 %", "median", "95 %", "band width", "forest's fit", "forest OOB R²"]) {
    const th = el("th", head, h);
    th.scope = "col";
    th.className = "num";
  }
  const row = el("tr", el("tbody", t));
  cell(row, human(r.q05, r.y), "num", r.q05).dataset.field = "q05";
  cell(row, human(r.q50, r.y), "num", r.q50).dataset.field = "q50";
  cell(row, human(r.q95, r.y), "num", r.q95).dataset.field = "q95";
  cell(row, human(r.width, r.y), "num", r.width).dataset.field = "width";
  const rf = r.rf || {};
  /* the scatter's rule: the forest's fit only where it beats the mean out of bag */
  const r2 = typeof rf.oob_r2 === "number" ? rf.oob_r2 : null;
  if (r2 !== null && r2 <= 0) {
    const td = cell(row, "—", "num null");
    td.dataset.field = "rf.fit";
    td.title = "forest not shown: OOB R² " + r2.toFixed(2) + " ≤ 0";
    t.caption.textContent += "; forest not shown: OOB R² " + r2.toFixed(2) + " ≤ 0";
  } else {
    cell(row, human(rf.fit, r.y), "num", rf.fit).dataset.field = "rf.fit";
  }
  cell(row, typeof rf.oob_r2 === "number" ? rf.oob_r2.toFixed(3) : "—", "num",
    rf.oob_r2).dataset.field = "rf.oob_r2";
}

function predictForm(groups, assoc) {
  const select = document.getElementById("predict-group");
  const input = document.getElementById("predict-x");
  select.textContent = "";
  predictState.assoc.clear();
  let first = null;
  groups.forEach((g, i) => {
    const a = assoc[i].ok ? assoc[i].body : null;
    const grid = a && a.kde && Array.isArray(a.kde.x_grid) ?
      a.kde.x_grid.filter(v => typeof v === "number") : [];
    if (grid.length === 0) return; /* no KDE: nothing to expect */
    predictState.assoc.set(g.id, {y: a.y, x: a.x, mid: grid[grid.length >> 1],
      lo: grid[0], hi: grid[grid.length - 1]});
    const o = el("option", select, g.name);
    o.value = g.id;
    if (first === null) first = g.id;
  });
  const hint = () => {
    const a = predictState.assoc.get(select.value);
    if (!a) return;
    document.getElementById("predict-x-name").textContent = a.x + " in " +
      (fmt.units.unitOf(a.x) || "its unit");
    document.getElementById("predict-x-note").textContent = "the KDE's grid spans " +
      human(a.lo, a.x) + " to " + human(a.hi, a.x);
  };
  select.onchange = () => {
    const a = predictState.assoc.get(select.value);
    input.value = String(a.mid);
    hint();
  };
  if (first === null) {
    failed(document.getElementById("predict-body"), "predict",
      "no group has a KDE stored (iocontend analyze stores it)");
    return null;
  }
  select.value = first;
  select.onchange();
  return predict();
}

// Whether an association answer says its group has fewer jobs than d_min.
function belowMin(answer) {
  return answer.ok && answer.body.reason === "d_below_min";
}

// The button in row that draws group g's charts below the table of the groups under
// d_min, once, and then hides and shows them; what it draws settles
// window.iocontendDone, as the page's first run does.
function expander(charts, g, assoc, row) {
  const td = el("td", row);
  const button = el("button", td, "draw charts");
  button.type = "button";
  button.style.whiteSpace = "nowrap"; /* one line at 800 px too */
  button.dataset.expand = g.id;
  button.setAttribute("aria-label", "draw the charts of group " + g.name);
  if (!charts) {
    button.disabled = true; /* the plotting library did not load: said above */
    return;
  }
  const box = document.getElementById("details-small");
  button.addEventListener("click", () => {
    const drawn = box.querySelector("section.detail[data-group=\"" + g.id + "\"]");
    if (drawn) {
      drawn.hidden = !drawn.hidden;
      button.textContent = drawn.hidden ? "show charts" : "hide charts";
      return;
    }
    button.disabled = true;
    button.textContent = "drawing…";
    const done = guarded(box, g.id, () => details(charts, g, assoc, box)).then(() => {
      button.disabled = false;
      button.textContent = "hide charts";
      const sec = box.querySelector("section.detail[data-group=\"" + g.id + "\"]");
      if (sec) sec.scrollIntoView({block: "nearest"});
    });
    window.iocontendDone = Promise.all([window.iocontendDone, done]);
  });
}

async function main() {
  const status = document.getElementById("status");
  for (const id of ["details", "details-small", "coverage-body", "hurt-body", "predict-body"]) {
    document.getElementById(id).textContent = "";
  }
  document.querySelector("#groups tbody").textContent = "";
  document.querySelector("#groups-small tbody").textContent = "";
  document.getElementById("small").hidden = true;
  // a second run (a token typed) draws anew: no view of the first stays behind
  const views = window.iocontendViews || {};
  for (const k of Object.keys(views)) {
    views[k].finalize();
    delete views[k];
  }
  document.getElementById("groups").hidden = true;
  status.textContent = "loading…";
  try {
    const listed = await json(API + "groups");
    if (!listed.ok) {
      const why = listed.body.error && listed.body.error.message ? ": " + listed.body.error.message : "";
      status.textContent = "the API answered " + listed.status + why;
      if (listed.status === 401) {
        document.getElementById("token-note").textContent =
          "this server needs its token: type it here (kept in this tab only)";
        document.getElementById("token").focus();
      }
      return;
    }
    const groups = listed.body.groups;
    const assoc = await Promise.all(groups.map(g =>
      json(API + "groups/" + g.id + "/association?y=t_d&x=psi_d_read")));
    // At or above d_min (or the association failed: its error is shown with the
    // charts) first, with their charts; the rest one row each, charts on request.
    const charted = [], small = [];
    groups.forEach((g, i) => (belowMin(assoc[i]) ? small : charted).push(i));
    const rows = new Map();
    for (const [list, id] of [[charted, "groups"], [small, "groups-small"]]) {
      const body = document.querySelector("#" + id + " tbody");
      for (const i of list) {
        const g = groups[i];
        const row = el("tr", body);
        row.dataset.group = g.id;
        cell(row, g.id, "id");
        cell(row, g.name);
        cell(row, String(g.jobs), "num", g.jobs);
        const a = assoc[i].ok ? assoc[i].body : {};
        cell(row, a.d === undefined ? "—" : String(a.d), "num", a.d);
        cell(row, coef(a.pearson), a.pearson == null ? "num null" : "num", a.pearson);
        cell(row, coef(a.spearman), a.spearman == null ? "num null" : "num", a.spearman);
        rows.set(i, row);
      }
    }
    document.getElementById("groups").hidden = false;
    document.getElementById("small").hidden = small.length === 0;
    document.getElementById("small-count").textContent = String(small.length);
    let charts = null;
    try {
      charts = await chartsReady;
      fmt.units = charts;
    } catch (e) {
      failed(document.getElementById("details"), "charts",
        "no charts: the plotting library did not load: " + e.message);
    }
    const side = [hurt(groups).catch(e => failed(document.getElementById("hurt-body"),
      "slowdowns", String(e)))];
    if (charts) {
      side.push(Promise.resolve(predictForm(groups, assoc)).catch(e =>
        failed(document.getElementById("predict-body"), "predict", String(e))));
      for (const i of charted) {
        await guarded(document.getElementById("details"), groups[i].id,
          () => details(charts, groups[i], assoc[i], document.getElementById("details")));
      }
      await guarded(document.getElementById("coverage-body"), "coverage",
        () => coverage(charts, document.getElementById("coverage-body")));
    }
    for (const i of small) expander(charts, groups[i], assoc[i], rows.get(i));
    await Promise.all(side);
    status.textContent = groups.length + " groups" + (small.length > 0 ? ", " +
      charted.length + " with their charts, " + small.length + " below d_min" : "");
  } catch (e) {
    status.textContent = "the API did not answer: " + e;
  }
}

document.getElementById("token-form").addEventListener("submit", ev => {
  ev.preventDefault();
  const field = document.getElementById("token");
  try { sessionStorage.setItem(TOKEN_KEY, field.value.trim()); } catch (e) { /* private mode */ }
  field.value = "";
  window.iocontendRuns = (window.iocontendRuns || 0) + 1;
  window.iocontendDone = main();
});
document.getElementById("token-forget").addEventListener("click", () => {
  try { sessionStorage.removeItem(TOKEN_KEY); } catch (e) { /* private mode */ }
  window.iocontendRuns = (window.iocontendRuns || 0) + 1;
  window.iocontendDone = main();
});
document.getElementById("predict-form").addEventListener("submit", ev => {
  ev.preventDefault();
  window.iocontendDone = Promise.all([window.iocontendDone, predict()]);
});
// A test waits on this promise before it reads the page.
window.iocontendRuns = 1;
window.iocontendDone = main();
