// playbench viewer: renders run data with textContent only, so model and game text can never run.
// Pages have no inline script: this file starts them from <body data-page>, and the page's policy
// allows no script but the site's own files. No network: data comes from <script src> files beside the page.
"use strict";
const PB = { runs: [], statuses: [], episodes: {}, shards: {}, waiting: {}, live: null, liveVersion: null };
PB.setRuns = (runs, statuses, live) => { PB.runs = runs; PB.statuses = statuses || []; PB.isLive = !!live; };
PB.setEpisodes = (run, tasks, rows) => { rows.forEach(r => { r[0] = tasks[r[0]]; }); PB.episodes[run] = rows; };
PB.setShard = (run, shard, b64) => {
  const key = run + "|" + shard;
  if (PB.waiting[key]) { PB.waiting[key](b64); delete PB.waiting[key]; }
};
PB.setLive = (version, done) => { PB.live = { version, done }; };
// task id -> the picture kind its task names (data/pictures.js): what pictures.js draws from observations
PB.pictures = new Map();
PB.setPictures = kinds => { PB.pictures = new Map(Object.entries(kinds)); };
// episode row columns (data/r<k>/episodes.js)
const COL = { task: 0, index: 1, seed: 2, status: 3, score: 4, completion: 5, steps: 6, invalid: 7, tokens: 8,
  cost: 9, shard: 10, pos: 11 };

// Control characters become visible (ESC as ␛, C1 and bidi overrides as \x9b / \u202e), as in the terminal.
function visible(text) {
  return text
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, c => String.fromCharCode(c === "\u007f" ? 0x2421 : 0x2400 + c.charCodeAt(0)))
    .replace(/[\u0080-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, c => {
      const code = c.charCodeAt(0);
      return code <= 0xff ? "\\x" + code.toString(16) : "\\u" + code.toString(16);
    });
}
const LABEL = 300;
// A label (task id, model name) cut to a readable length: record text can be megabytes long.
function short(text) {
  const s = String(text);
  return s.length > LABEL ? s.slice(0, LABEL) + "… (+" + (s.length - LABEL) + " characters)" : s;
}
function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = visible(String(text));
  if (cls) node.className = cls;
  return node;
}
function fmt(x) { return x === null || x === undefined ? "-" : (typeof x === "number" ? (Number.isInteger(x) ? String(x) : x.toFixed(3)) : String(x)); }
function money(micro) { return micro === null || micro === undefined ? "-" : "$" + (micro / 1e6).toFixed(4); }
function loadScript(src) {
  return new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = src; s.onload = () => { s.remove(); resolve(); }; s.onerror = () => { s.remove(); reject(new Error("cannot load " + src)); };
    document.head.appendChild(s);
  });
}
function episodeHref(run, task, index) {
  return "episode.html#r=" + run + "&t=" + encodeURIComponent(task) + "&i=" + index;
}
function compareHref(task, index) { return "compare.html#t=" + encodeURIComponent(task) + "&i=" + index; }
function link(text, href) { const a = el("a", text); a.href = href; return a; }
// How a run is named wherever the pages name it: its own label (eval --label), else its model or agent.
function runName(r) { return short(r.label || r.model || r.agent); }

// ---- labels on the overview: the run table and each run's heading (user text: textContent only) ------
function showLabels() {
  const rows = document.querySelectorAll("table.runs tbody tr");
  PB.runs.forEach((r, k) => {
    if (!r.label) return;
    const heading = document.querySelector("#run-" + k + " h2");
    if (heading) heading.append(" ", el("span", short(r.label), "label"));
    const cell = rows[k] ? rows[k].cells[1] : null;
    if (cell) cell.append(" ", el("span", short(r.label), "label"));
  });
}

// ---- sorting: a click on any header of a .sortable table sorts by that column (again: reversed) ------
function cellValue(td) {
  const v = td.dataset.v !== undefined ? td.dataset.v : td.textContent.trim();
  const n = Number(v);
  return v !== "" && v !== "-" && !Number.isNaN(n) ? n : v;
}
function compareValues(a, b) {
  const ea = a === "" || a === "-" || a === null || a === undefined, eb = b === "" || b === "-" || b === null || b === undefined;
  if (ea || eb) return ea === eb ? 0 : ea ? 1 : -1;  // empty cells last
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true });
}
function makeSortable(table) {
  const heads = table.querySelectorAll("thead th");
  heads.forEach((th, col) => {
    th.classList.add("sort"); th.title = "sort by this column";
    th.addEventListener("click", () => {
      const body = table.tBodies[0];
      const dir = th.dataset.dir === "asc" ? "desc" : "asc";
      heads.forEach(h => delete h.dataset.dir);
      th.dataset.dir = dir;
      const rows = Array.from(body.rows);
      rows.sort((a, b) => compareValues(cellValue(a.cells[col]), cellValue(b.cells[col])) * (dir === "asc" ? 1 : -1));
      body.append(...rows);
    });
  });
}

// ---- the episode list of one run (index.html) ------------------------------------------------------
const PAGE = 100;
const LIST_COLUMNS = [["task", COL.task], ["episode", COL.index], ["seed", COL.seed], ["status", COL.status],
  ["score", COL.score], ["completion", COL.completion], ["steps", COL.steps], ["invalid", COL.invalid],
  ["tokens", COL.tokens], ["cost", COL.cost]];
function renderList(run) {
  const rows = PB.episodes[run] || [];
  const box = document.getElementById("episodes-" + run);
  const state = { page: 0, sort: null, dir: 1 };
  const controls = el("div", null, "filters");
  const status = el("select"); ["any", ...PB.statuses].forEach(s => status.appendChild(el("option", s)));
  const task = el("select");
  ["any", ...new Set(rows.map(r => r[COL.task]))].forEach(t => { const o = el("option", short(t)); o.value = t; task.appendChild(o); });
  const minScore = el("input"); minScore.type = "number"; minScore.step = "any"; minScore.placeholder = "min score";
  const invalid = el("input"); invalid.type = "checkbox";
  const label = (text, input) => { const l = el("label", text + " "); l.appendChild(input); return l; };
  [label("task", task), label("status", status), label("score ≥", minScore), label("with invalid actions", invalid)]
    .forEach(n => controls.appendChild(n));
  const table = el("table", null, "list"); const pager = el("div", null, "pager");
  box.replaceChildren(controls, table, pager);
  const draw = () => {
    const min = minScore.value === "" ? null : Number(minScore.value);
    let shown = rows.filter(r => (task.value === "any" || r[COL.task] === task.value)
      && (status.value === "any" || r[COL.status] === status.value)
      && (min === null || (r[COL.score] !== null && r[COL.score] >= min))
      && (!invalid.checked || r[COL.invalid] > 0));
    if (state.sort !== null) {
      const c = state.sort;
      shown = shown.slice().sort((a, b) => compareValues(a[c], b[c]) * state.dir || a[COL.index] - b[COL.index]);
    }
    const pages = Math.max(1, Math.ceil(shown.length / PAGE));
    state.page = Math.min(state.page, pages - 1);
    const head = el("thead"); const hr = el("tr"); head.appendChild(hr);
    LIST_COLUMNS.forEach(([name, c], i) => {
      const th = el("th", name + (state.sort === c ? (state.dir > 0 ? " ▲" : " ▼") : ""), (i === 0 ? "l " : "") + "sort");
      th.title = "sort by " + name;
      th.addEventListener("click", () => { state.dir = state.sort === c ? -state.dir : 1; state.sort = c; draw(); });
      hr.appendChild(th);
    });
    const body = el("tbody");
    for (const r of shown.slice(state.page * PAGE, (state.page + 1) * PAGE)) {
      const tr = el("tr");
      const name = el("td", null, "l"); name.appendChild(link(short(r[COL.task]), episodeHref(run, r[COL.task], r[COL.index])));
      tr.appendChild(name);
      const num = el("td"); num.appendChild(link("#" + r[COL.index], episodeHref(run, r[COL.task], r[COL.index])));
      tr.appendChild(num);
      [r[COL.seed], r[COL.status], fmt(r[COL.score]), fmt(r[COL.completion]), r[COL.steps], r[COL.invalid],
        r[COL.tokens], money(r[COL.cost])]
        .forEach((v, i) => tr.appendChild(el("td", v, i === 1 && v !== "ok" ? "bad" : "")));
      body.appendChild(tr);
    }
    table.replaceChildren(head, body);
    pager.replaceChildren();
    const prev = el("button", "‹ prev"); prev.disabled = state.page === 0; prev.onclick = () => { state.page--; draw(); };
    const next = el("button", "next ›"); next.disabled = state.page >= pages - 1; next.onclick = () => { state.page++; draw(); };
    pager.append(prev, el("span", "page " + (state.page + 1) + " of " + pages + " (" + shown.length + " episodes)"), next);
  };
  [status, task, minScore, invalid].forEach(n => n.addEventListener("input", () => { state.page = 0; draw(); }));
  draw();
}

// ---- episodes shared by several runs: links to the side-by-side page --------------------------------
function renderShared() {
  const box = document.getElementById("shared");
  if (!box || PB.runs.length < 2) return;
  const seen = new Map();
  PB.runs.forEach((_, run) => (PB.episodes[run] || []).forEach(r => {
    const key = JSON.stringify([r[COL.task], r[COL.index]]);
    if (!seen.has(key)) seen.set(key, { task: r[COL.task], index: r[COL.index], scores: {} });
    seen.get(key).scores[run] = r[COL.score];
  }));
  const both = Array.from(seen.values()).filter(e => Object.keys(e.scores).length >= 2);
  box.appendChild(el("h2", "Side by side: " + both.length + " episodes recorded in two or more runs"));
  if (!both.length) return;
  const table = el("table", null, "sortable"); const head = el("thead"); const hr = el("tr");
  ["task", "episode", ...PB.runs.map((r, k) => "score: run " + k + " (" + runName(r) + ")")]
    .forEach((h, i) => hr.appendChild(el("th", h, i === 0 ? "l" : "")));
  head.appendChild(hr);
  const body = el("tbody");
  for (const e of both.slice(0, 2000)) {
    const tr = el("tr");
    const a = el("td", null, "l"); a.appendChild(link(short(e.task), compareHref(e.task, e.index))); tr.appendChild(a);
    const b = el("td"); b.dataset.v = e.index; b.appendChild(link("#" + e.index, compareHref(e.task, e.index))); tr.appendChild(b);
    PB.runs.forEach((_, k) => tr.appendChild(el("td", e.scores[k] === undefined ? "-" : fmt(e.scores[k]))));
    body.appendChild(tr);
  }
  table.append(head, body);
  const d = el("details"); d.open = both.length <= 200;
  d.append(el("summary", "episodes" + (both.length > 2000 ? " (first 2000)" : "")), table);
  box.appendChild(d);
  makeSortable(table);
}

// ---- search over every episode's text --------------------------------------------------------------
async function search(query) {
  const out = document.getElementById("search-out");
  const needle = query.toLowerCase();
  out.replaceChildren(el("p", "searching…", "meta"));
  if (!needle) { out.replaceChildren(); return; }
  const table = el("table", null, "sortable"); const head = el("thead"); const hr = el("tr");
  ["run", "task", "episode", "step", "where", "text"].forEach((h, i) => hr.appendChild(el("th", h, i === 1 || i >= 4 ? "l" : "")));
  head.appendChild(hr);
  const body = el("tbody"); table.append(head, body);
  let hits = 0, episodes = 0;
  const LIMIT = 500;
  const add = (run, task, index, step, where, text) => {
    hits++;
    if (hits > LIMIT) return;
    const at = text.toLowerCase().indexOf(needle);
    const snippet = (at > 40 ? "…" : "") + text.slice(Math.max(0, at - 40), at + needle.length + 60);
    const tr = el("tr");
    tr.appendChild(el("td", run));
    const t = el("td", null, "l"); t.appendChild(link(short(task), episodeHref(run, task, index) + (step === null ? "" : "&s=" + step))); tr.appendChild(t);
    [index, step === null ? "-" : step].forEach(v => tr.appendChild(el("td", v)));
    tr.appendChild(el("td", where, "l")); tr.appendChild(el("td", snippet.replace(/\s+/g, " "), "l"));
    body.appendChild(tr);
  };
  for (let run = 0; run < PB.runs.length; run++) {
    const rows = PB.episodes[run] || [];
    const shardsUsed = [...new Set(rows.map(r => r[COL.shard]))];
    for (const shard of shardsUsed) {
      const eps = await loadShard(run, shard);
      for (const ep of eps) {
        episodes++;
        const rec = ep.record;
        if (String(rec.task).toLowerCase().includes(needle)) add(run, rec.task, rec.index, null, "task", String(rec.task));
        if (rec.error && rec.error.toLowerCase().includes(needle)) add(run, rec.task, rec.index, null, "error", rec.error);
        const textHit = ep.texts.map(t => t.toLowerCase().includes(needle));
        const msgHit = ep.messages.map(m => (typeof m[1] === "number" ? textHit[m[1]] : JSON.stringify(m[1]).toLowerCase().includes(needle)));
        for (const s of ep.steps) {
          if (textHit[s[1]]) add(run, rec.task, rec.index, s[0], "observation", ep.texts[s[1]]);
          if (s[2] !== null && textHit[s[2]]) add(run, rec.task, rec.index, s[0], "model output", ep.texts[s[2]]);
          else if (s[9] && s[9].some(m => msgHit[m])) {
            const m = ep.messages[s[9].find(i => msgHit[i])];
            add(run, rec.task, rec.index, s[0], "message (" + m[0] + ")", typeof m[1] === "number" ? ep.texts[m[1]] : JSON.stringify(m[1]));
          }
        }
      }
    }
  }
  const line = el("p", hits + " matches in " + episodes + " episodes" + (hits > LIMIT ? " (first " + LIMIT + " shown)" : ""), "meta hits");
  out.replaceChildren(line, table);
  makeSortable(table);
}

// ---- live: reload when the site's version grows --------------------------------------------------
function watchLive() {
  const box = document.getElementById("live");
  if (!PB.isLive || !PB.live || PB.live.done) {
    if (PB.live && PB.live.done && PB.live.version > 0) box.textContent = " · run finished: every scheduled episode recorded";
    return;
  }
  const start = PB.live.version;
  box.textContent = " · live: refreshing as the run progresses";
  box.className = "live";
  const tick = async () => {
    try { await loadScript("data/live.js?v=" + Date.now()); } catch (e) { /* the file is being replaced */ }
    if (PB.live && PB.live.version !== start) { location.reload(); return; }
    setTimeout(tick, 1500);
  };
  setTimeout(tick, 1500);
}

async function initIndex() {
  showLabels();
  document.querySelectorAll("table.sortable").forEach(makeSortable);
  const form = document.getElementById("search");
  form.addEventListener("submit", ev => { ev.preventDefault(); search(document.getElementById("search-q").value.trim()); });
  for (let run = 0; run < PB.runs.length; run++) {
    try { if (!PB.episodes[run]) await loadScript("data/r" + run + "/episodes.js"); renderList(run); }
    catch (e) { document.getElementById("episodes-" + run).replaceChildren(el("p", e.message, "bad")); }
  }
  renderShared();
}

document.addEventListener("DOMContentLoaded", () => {
  const page = document.body.dataset.page;
  if (page === "index") initIndex();
  else if (page === "episode") initEpisode();
  else if (page === "compare") initCompare();
  watchLive();
});
