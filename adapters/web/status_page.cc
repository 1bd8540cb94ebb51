// The status page at `/`: self-contained (no CDN, nothing fetched but /api/status), so it works
// on a compute node with no way out. The script draws everything from the JSON.
#include "adapters/web/web_routes.h"

namespace merlin::web {

const std::string& status_page_html() {
  static const std::string kPage = R"HTML(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>merlin monitor</title>
<style>
:root { --done:#2e9d5b; --failed:#d64545; --running:#3b7dd8; --queued:#d5dae1; --ink:#1d2733;
        --muted:#6b7785; --card:#ffffff; --bg:#f2f4f7; --line:#e3e7ec; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
       color:var(--ink); background:var(--bg); }
header { background:#1d2733; color:#fff; padding:14px 24px; display:flex; align-items:center;
         gap:16px; flex-wrap:wrap; }
header h1 { font-size:18px; margin:0; font-weight:600; }
header .ws { color:#aab6c3; font-family:ui-monospace,monospace; font-size:12px; flex:1;
             overflow:hidden; text-overflow:ellipsis; white-space:nowrap; }
.pill { padding:3px 10px; border-radius:12px; font-size:12px; background:#2e9d5b; color:#fff; }
.pill.down { background:#d64545; }
.pill.stale { background:#b7791f; }
main { padding:18px 24px; display:grid; gap:16px; grid-template-columns: 1fr 1fr; }
.card { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:14px 16px;
        min-width:0; }
.card h2 { font-size:13px; text-transform:uppercase; letter-spacing:.05em; color:var(--muted);
           margin:0 0 10px; font-weight:600; }
.wide { grid-column: 1 / -1; }
.bar { display:flex; height:14px; border-radius:7px; overflow:hidden; background:var(--queued);
       min-width:120px; }
.bar span { display:block; height:100%; }
.bar .d { background:var(--done); } .bar .f { background:var(--failed); }
.bar .r { background:var(--running); }
.big { display:flex; gap:28px; align-items:baseline; flex-wrap:wrap; margin-bottom:10px; }
.big b { font-size:28px; font-weight:600; }
.big small { color:var(--muted); display:block; }
table { width:100%; border-collapse:collapse; font-variant-numeric:tabular-nums; }
th { text-align:left; color:var(--muted); font-weight:600; font-size:12px; padding:4px 8px;
     border-bottom:1px solid var(--line); white-space:nowrap; }
td { padding:5px 8px; border-bottom:1px solid var(--line); vertical-align:middle; }
td.n, th.n { text-align:right; white-space:nowrap; }
td.mono { font-family:ui-monospace,monospace; font-size:12px; }
.cmd { color:var(--muted); font-size:11px; word-break:break-all; }
.legend span { display:inline-block; margin-right:14px; font-size:12px; color:var(--muted); }
.legend i { display:inline-block; width:10px; height:10px; border-radius:2px; margin-right:4px;
            vertical-align:-1px; }
.empty { color:var(--muted); font-style:italic; padding:6px 0; }
.err { color:var(--failed); }
.scroll { overflow-x:auto; }
.note { color:var(--muted); font-size:12px; margin:0 0 8px; }
.lost { color:var(--failed); font-weight:600; }
a { color:var(--running); }
svg text { fill:var(--muted); font-size:11px; }
#banner { display:none; grid-column:1/-1; background:#fdecec; border:1px solid #f3b9b9;
          color:#8a1f1f; border-radius:8px; padding:10px 14px; }
@media (max-width: 900px) { main { grid-template-columns: 1fr; } }
</style>
</head>
<body>
<header>
  <h1 id="title">merlin monitor</h1>
  <span class="ws" id="workspace"></span>
  <span class="pill" id="state">connecting…</span>
  <span id="updated" style="color:#aab6c3;font-size:12px"></span>
</header>
<main>
  <div id="banner"></div>
  <section class="card wide">
    <h2>Study</h2>
    <div class="big" id="totals"></div>
    <div class="bar" id="totalbar"></div>
    <div class="legend" style="margin-top:8px">
      <span><i style="background:var(--done)"></i>done</span>
      <span><i style="background:var(--failed)"></i>failed</span>
      <span><i style="background:var(--running)"></i>running</span>
      <span><i style="background:var(--queued)"></i>queued</span>
    </div>
  </section>
  <section class="card wide">
    <h2>Steps</h2>
    <table id="steps"><thead><tr><th>step</th><th style="width:28%">progress</th>
      <th class="n">done</th><th class="n">failed</th><th class="n">running</th>
      <th class="n">queued</th><th class="n">total</th><th class="n">mean run</th>
      <th class="n">rate</th><th class="n">ETA</th></tr></thead><tbody></tbody></table>
  </section>
  <div id="searches" class="wide" style="display:grid;gap:16px" hidden></div>
  <section class="card">
    <h2>Throughput (tasks finished)</h2>
    <svg id="plot" viewBox="0 0 560 220" width="100%" height="220" role="img"
         aria-label="tasks finished over time"></svg>
  </section>
  <section class="card">
    <h2>Workers</h2>
    <table id="workers"><thead><tr><th>host</th><th class="n">pid</th><th>worker</th>
      <th>queues</th><th class="n">slots</th><th>batch job</th><th class="n">heartbeat</th>
      </tr></thead><tbody></tbody></table>
  </section>
  <section class="card wide">
    <h2 id="failhead">Failures</h2>
    <table id="failures"><thead><tr><th>step</th><th class="n">sample</th><th>task</th>
      <th>return code</th><th>worker</th><th>ended</th><th>stderr</th></tr></thead>
      <tbody></tbody></table>
  </section>
</main>
<script>
"use strict";
const params = new URLSearchParams(location.search);
const token = params.get("token");
const withToken = (url) => token ? url + (url.includes("?") ? "&" : "?") + "token=" +
  encodeURIComponent(token) : url;
const every = Math.max(1, Number(params.get("every") || 3)) * 1000;
let lastOk = null, lastData = null;

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s ?? "").replace(/[&<>"']/g,
  (c) => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;","'":"&#39;"}[c]));
const num = (n) => Number(n).toLocaleString("en-US");
function dur(s) {
  if (s === null || s === undefined) return "–";
  if (s < 1) return s.toFixed(2) + " s";
  if (s < 60) return s.toFixed(1) + " s";
  s = Math.round(s);
  if (s < 3600) return Math.floor(s / 60) + "m" + String(s % 60).padStart(2, "0") + "s";
  return Math.floor(s / 3600) + "h" + String(Math.floor(s / 60) % 60).padStart(2, "0") + "m";
}
const rate = (r) => r > 0 ? (r >= 1 ? r.toFixed(1) + "/s" : (r * 60).toFixed(1) + "/min") : "–";
const pct = (c) => c.total ? (100 * (c.done + c.failed) / c.total) : 0;
function bar(c) {
  const t = Math.max(c.total, 1), w = (x) => (100 * x / t).toFixed(2) + "%";
  return `<span class="d" style="width:${w(c.done)}"></span>` +
         `<span class="f" style="width:${w(c.failed)}"></span>` +
         `<span class="r" style="width:${w(c.running)}"></span>`;
}
const clock = (t) => new Date(t * 1000).toLocaleTimeString("en-GB");
// A number as `merlin status` prints a result: 6 significant digits, as C's %g.
function g6(v) {
  if (!isFinite(v)) return String(v);
  const [m, e] = v.toExponential(5).split("e"), x = Number(e);
  const trim = (t) => t.includes(".") ? t.replace(/\.?0+$/, "") : t;
  if (x < -4 || x >= 6) return trim(m) + "e" + (x < 0 ? "-" : "+") + String(Math.abs(x)).padStart(2, "0");
  return trim(v.toFixed(5 - x));
}
const cfg = (v) => typeof v === "number" ? (Number.isInteger(v) ? String(v) : g6(v)) : esc(v);
const fixed = ["rank", "trial", "rung", "budget", "value", "state"];

// One panel per search (docs/tuning.md, "Watching a search"): the title line of
// `merlin status`, then its best trials. Configuration values come from the spec: escaped.
function searchPanel(s) {
  const plural = s.trials === 1 ? "" : "s";
  const title = `${s.trials} trial${plural}, ${s.full_budget} at the full budget` +
    (s.budget === null ? "" : ` (${s.budget})`) + `, ${s.stopped} stopped` +
    (s.failed ? `, ${s.failed} failed` : "") + (s.running ? `, ${s.running} running` : "") +
    (s.waiting ? `, ${s.waiting} waiting` : "") +
    (s.best_trial === null ? ", no result yet" : `, best ${g6(s.best_value)} (trial ${s.best_trial})`);
  const b = s.leaderboard, dims = b.length ? Object.keys(b[0]).filter((k) => !fixed.includes(k)) : [];
  const rows = b.map((r) =>
    `<tr class="search-row" data-rank="${r.rank}" data-trial="${r.trial}"><td class="n">${r.rank}</td>` +
    `<td class="n">${r.trial}</td><td class="n">${r.rung ?? "–"}</td>` +
    `<td class="n">${r.budget === null ? "–" : r.budget}</td>` +
    `<td class="n">${r.value === null ? "–" : g6(r.value)}</td>` +
    `<td class="${r.state === "failed" ? "err" : ""}">${esc(r.state)}</td>` +
    dims.map((k) => `<td class="mono">${cfg(r[k])}</td>`).join("") + `</tr>`).join("");
  const more = s.trials - b.length;
  return `<section class="card search-board" data-instance="${esc(s.instance)}">` +
    `<h2>Search · ${esc(s.step)}${s.labels === null ? "" : " (" + esc(s.labels) + ")"}</h2>` +
    `<p class="note search-title">${esc(s.method)}, ${s.mode === "max" ? "highest" : "lowest"} first: ` +
    `${esc(title)}</p><div class="scroll"><table><thead><tr><th class="n">rank</th>` +
    `<th class="n">trial</th><th class="n">rung</th><th class="n">budget</th><th class="n">value</th>` +
    `<th>state</th>${dims.map((k) => `<th>${esc(k)}</th>`).join("")}</tr></thead><tbody>${rows}` +
    `</tbody></table></div>` + (more > 0 ? `<p class="note" style="margin:8px 0 0">${more} more; ` +
    `<code>merlin status --trials 0</code> shows every trial</p>` : "") + `</section>`;
}

function render(d) {
  document.title = "merlin · " + d.study.name;
  $("title").textContent = "merlin · " + d.study.name;
  $("workspace").textContent = d.study.workspace + (d.study.distributed ?
    "  (broker " + (d.study.broker || "") + ")" : "  (local run)");
  const t = d.totals;
  $("totals").innerHTML =
    `<div><b class="pct" id="totalpct">${pct(t).toFixed(1)}%</b><small>finished</small></div>` +
    `<div><b>${num(t.done)}</b><small>done of ${num(t.total)}</small></div>` +
    `<div><b class="${t.failed ? "err" : ""}">${num(t.failed)}</b><small>failed</small></div>` +
    `<div><b>${num(t.running)}</b><small>running</small></div>` +
    `<div><b>${num(t.queued)}</b><small>queued</small></div>` +
    `<div><b>${rate(t.rate_per_second)}</b><small>last minute</small></div>` +
    `<div><b>${t.queued + t.running === 0 ? "done" : dur(t.eta_seconds)}</b><small>ETA</small></div>`;
  $("totalbar").innerHTML = bar(t);
  $("steps").tBodies[0].innerHTML = d.steps.map((s) =>
    `<tr class="step-row" data-step="${esc(s.step)}"><td><b>${esc(s.step)}</b>` +
    (s.count_unknown ? ` <small>(+${s.count_unknown} not released)</small>` : "") + `</td>` +
    `<td><div style="display:flex;gap:8px;align-items:center"><div class="bar" style="flex:1">` +
    `${bar(s)}</div><span class="pct">${pct(s).toFixed(1)}%</span></div></td>` +
    `<td class="n">${num(s.done)}</td><td class="n ${s.failed ? "err" : ""}">${num(s.failed)}</td>` +
    `<td class="n">${num(s.running)}</td><td class="n">${num(s.queued)}</td>` +
    `<td class="n">${num(s.total)}</td><td class="n">${s.done + s.failed ? dur(s.mean_seconds) : "–"}</td>` +
    `<td class="n">${rate(s.rate_per_second)}</td>` +
    `<td class="n">${s.queued + s.running === 0 && !s.count_unknown ? "done" : dur(s.eta_seconds)}</td></tr>`
  ).join("");
  const searches = d.searches || [];
  $("searches").hidden = searches.length === 0;
  $("searches").innerHTML = searches.map(searchPanel).join("");
  const w = $("workers").tBodies[0];
  w.innerHTML = d.workers.length ? d.workers.map((x) =>
    `<tr class="worker-row"><td class="mono">${esc(x.host)}</td><td class="n">${x.pid}</td>` +
    `<td>${esc(x.name)}</td><td class="mono">${esc(x.queues.join(", "))}</td>` +
    `<td class="n">${x.concurrency}</td><td class="mono">${x.batch_job === null ? "–" : esc(x.batch_job)}</td>` +
    `<td class="n ${x.alive ? "" : "lost"}">${x.heartbeat_age_seconds.toFixed(1)} s${x.alive ? "" : " (lost)"}</td></tr>`
  ).join("") : `<tr><td colspan="7" class="empty">${d.study.distributed ?
    "no worker serves this study now" : "a local run has no broker workers"}</td></tr>`;
  $("failhead").textContent = "Failures" + (d.failed_total ? " (" + num(d.failed_total) + ", newest " +
    d.failures.length + " shown)" : "");
  $("failures").tBodies[0].innerHTML = d.failures.length ? d.failures.map((f) =>
    `<tr class="failure-row"><td>${esc(f.step)}</td><td class="n">${f.sample}</td>` +
    `<td class="mono">${esc(f.dir)}</td><td class="err">${esc(f.return_code ?? "failed")}</td>` +
    `<td>${esc(f.worker ?? "–")}</td><td>${f.ended_at ? clock(f.ended_at) : "–"}</td>` +
    `<td class="mono">${f.err_url ? `<a href="${esc(withToken(f.err_url))}" target="_blank">` +
      `${esc(f.err_file ? f.err_file.split("/").pop() : "stderr")}</a>` : ""}` +
      `${f.logs_command ? `<div class="cmd">${esc(f.logs_command)}</div>` : ""}</td></tr>`
  ).join("") : `<tr><td colspan="7" class="empty">no failed task</td></tr>`;
  plot(d.throughput);
  const problem = d.error ? "The last refresh failed: " + d.error :
    d.failures_error ? "The failed tasks could not be listed: " + d.failures_error : "";
  $("banner").style.display = problem ? "block" : "none";
  $("banner").textContent = problem;
}

function plot(series) {
  const W = 560, H = 220, L = 52, R = 12, T = 10, B = 28;
  const svg = $("plot");
  if (series.length < 2) {
    svg.innerHTML = `<text x="${W / 2}" y="${H / 2}" text-anchor="middle">collecting…</text>`;
    return;
  }
  const t0 = series[0].time, t1 = series[series.length - 1].time;
  const top = Math.max(1, ...series.map((p) => p.finished));
  // Four ticks at a round step (1, 2, 2.5 or 5 times a power of ten).
  const raw = top / 4, mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = Math.max(1, [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw));
  const ymax = step * Math.ceil(top / step);
  const x = (t) => L + (W - L - R) * (t - t0) / Math.max(t1 - t0, 1e-9);
  const y = (v) => T + (H - T - B) * (1 - v / ymax);
  const pts = series.map((p) => x(p.time).toFixed(1) + "," + y(p.finished).toFixed(1)).join(" ");
  let g = "";
  for (let v = 0; v <= ymax + 1e-9; v += step) {
    const yy = y(v).toFixed(1);
    g += `<line x1="${L}" x2="${W - R}" y1="${yy}" y2="${yy}" stroke="#e3e7ec"/>` +
         `<text x="${L - 6}" y="${+yy + 4}" text-anchor="end">${num(Math.round(v))}</text>`;
  }
  g += `<text x="${L}" y="${H - 8}">${clock(t0)}</text>` +
       `<text x="${W - R}" y="${H - 8}" text-anchor="end">${clock(t1)}</text>`;
  const area = `${x(t0).toFixed(1)},${y(0).toFixed(1)} ${pts} ${x(t1).toFixed(1)},${y(0).toFixed(1)}`;
  svg.innerHTML = g + `<polygon points="${area}" fill="rgba(46,157,91,0.12)"/>` +
    `<polyline points="${pts}" fill="none" stroke="#2e9d5b" stroke-width="2"/>`;
}

function showState() {
  const s = $("state");
  if (lastOk === null) return;
  const age = (Date.now() - lastOk) / 1000;
  $("updated").textContent = "last updated " + new Date(lastOk).toLocaleTimeString("en-GB") +
    (age > 2 * every / 1000 ? " (" + Math.round(age) + " s ago)" : "");
}

async function poll() {
  try {
    const r = await fetch(withToken("api/status"), {cache: "no-store"});
    if (!r.ok) throw new Error("HTTP " + r.status);
    lastData = await r.json();
    lastOk = Date.now();
    render(lastData);
    $("state").textContent = lastData.error ? "stale" : "live";
    $("state").className = "pill" + (lastData.error ? " stale" : "");
  } catch (e) {
    $("state").textContent = "server unreachable";
    $("state").className = "pill down";
    $("banner").style.display = "block";
    $("banner").textContent = "Cannot reach the monitor (" + e.message + ")" +
      (lastOk ? "; showing the data of " + new Date(lastOk).toLocaleTimeString("en-GB") : "") +
      ". Retrying every " + every / 1000 + " s.";
  }
  showState();
}
poll();
setInterval(poll, every);
</script>
</body>
</html>
)HTML";
  return kPage;
}

}  // namespace merlin::web
