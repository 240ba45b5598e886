// playbench viewer: renders run data with textContent only, so model and game text can never run.
// Pages have no inline script: this file starts them from <body data-page>, and the page's policy
// allows no script but the site's own files.
"use strict";
const PB = { runs: [], statuses: [], tasks: {}, episodes: {}, pending: {} };
PB.setRuns = (runs, statuses) => { PB.runs = runs; PB.statuses = statuses || []; };
PB.setTasks = (run, folders) => { PB.tasks[run] = folders; };  // task id -> folder of its episode files
PB.setEpisodes = (run, rows) => { PB.episodes[run] = rows; };
PB.setEpisode = (run, folder, index, data) => {
  const key = run + "|" + folder + "|" + index;
  if (PB.pending[key]) { PB.pending[key](data); delete PB.pending[key]; }
};

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
function loadScript(src) {
  return new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = src; s.onload = resolve; s.onerror = () => reject(new Error("cannot load " + src));
    document.head.appendChild(s);
  });
}
function episodeHref(run, task, index) {
  return "episode.html#r=" + run + "&t=" + encodeURIComponent(task) + "&i=" + index;
}

// ---- the episode list (index.html) --------------------------------------------------------------
const PAGE = 100;
function renderList(run) {
  const rows = PB.episodes[run] || [];
  const box = document.getElementById("episodes-" + run);
  const state = { page: 0 };
  const controls = el("div", null, "filters");
  const status = el("select"); ["any", ...PB.statuses].forEach(s => status.appendChild(el("option", s)));
  const task = el("select");
  ["any", ...new Set(rows.map(r => r[0]))].forEach(t => { const o = el("option", short(t)); o.value = t; task.appendChild(o); });
  const minScore = el("input"); minScore.type = "number"; minScore.step = "any"; minScore.placeholder = "min score";
  const invalid = el("input"); invalid.type = "checkbox";
  const label = (text, input) => { const l = el("label", text + " "); l.appendChild(input); return l; };
  [label("task", task), label("status", status), label("score ≥", minScore), label("with invalid actions", invalid)]
    .forEach(n => controls.appendChild(n));
  const table = el("table"); const pager = el("div", null, "pager");
  box.replaceChildren(controls, table, pager);
  const draw = () => {
    const min = minScore.value === "" ? null : Number(minScore.value);
    const shown = rows.filter(r => (task.value === "any" || r[0] === task.value)
      && (status.value === "any" || r[3] === status.value)
      && (min === null || (r[4] !== null && r[4] >= min))
      && (!invalid.checked || r[7] > 0));
    const pages = Math.max(1, Math.ceil(shown.length / PAGE));
    state.page = Math.min(state.page, pages - 1);
    const head = el("tr");
    ["task", "episode", "seed", "status", "score", "completion", "steps", "invalid", "tokens"].forEach((h, i) => head.appendChild(el("th", h, i === 0 ? "l" : "")));
    table.replaceChildren(head);
    for (const r of shown.slice(state.page * PAGE, (state.page + 1) * PAGE)) {
      const tr = el("tr");
      const name = el("td", null, "l"); const a = el("a", short(r[0])); a.href = episodeHref(run, r[0], r[1]); name.appendChild(a);
      tr.appendChild(name);
      const link = el("td"); const b = el("a", "#" + r[1]); b.href = episodeHref(run, r[0], r[1]); link.appendChild(b);
      tr.appendChild(link);
      [r[2], r[3], fmt(r[4]), fmt(r[5]), r[6], r[7], r[8]].forEach((v, i) => tr.appendChild(el("td", v, i === 1 && v !== "ok" ? "bad" : "")));
      table.appendChild(tr);
    }
    pager.replaceChildren();
    const prev = el("button", "‹ prev"); prev.disabled = state.page === 0; prev.onclick = () => { state.page--; draw(); };
    const next = el("button", "next ›"); next.disabled = state.page >= pages - 1; next.onclick = () => { state.page++; draw(); };
    pager.append(prev, el("span", "page " + (state.page + 1) + " of " + pages + " (" + shown.length + " episodes)"), next);
  };
  [status, task, minScore, invalid].forEach(n => n.addEventListener("input", () => { state.page = 0; draw(); }));
  draw();
}

async function initIndex() {
  for (let run = 0; run < PB.runs.length; run++) {
    try { await loadScript("data/r" + run + "/episodes.js"); renderList(run); }
    catch (e) { document.getElementById("episodes-" + run).replaceChildren(el("p", e.message, "bad")); }
  }
}

// ---- one episode (episode.html#r=0&t=task&i=3) ---------------------------------------------------
function block(title, text) {
  const d = el("details"); d.open = true;
  d.appendChild(el("summary", title));
  d.appendChild(el("pre", text));
  return d;
}
function picture(uri, alt) {
  // our own SVG, shown as an image: an <img> never runs scripts
  const img = el("img", null, "picture"); img.src = uri; img.alt = alt; return img;
}
function renderEpisode(run, data) {
  const box = document.getElementById("episode");
  const rec = data.record;
  const title = el("h2", short(rec.task) + " — episode " + rec.index);
  const summary = el("table");
  const fields = [["status", rec.status], ["seed", rec.seed], ["agent", rec.agent], ["model", rec.model],
    ["score", fmt(rec.score)], ["completion", fmt(rec.completion)], ["progress", fmt(rec.progress)],
    ["reward", fmt(rec.reward)], ["steps", rec.steps], ["invalid actions", rec.invalid_actions],
    ["tokens", JSON.stringify(rec.usage)], ["error", rec.error]];
  for (const [k, v] of fields) {
    const tr = el("tr"); tr.appendChild(el("th", k, "l")); tr.appendChild(el("td", v === null || v === undefined ? "-" : v, "l"));
    summary.appendChild(tr);
  }
  const parts = [title, ...(data.errors || []).map(msg => el("p", msg, "bad error"))];
  parts.push(summary);
  if (data.picture) parts.push(picture(data.picture, "episode picture"));
  if (rec.instance && Object.keys(rec.instance).length) { const b = block("instance", JSON.stringify(rec.instance, null, 2)); b.open = false; parts.push(b); }
  if (rec.metrics && Object.keys(rec.metrics).length) parts.push(block("metrics", JSON.stringify(rec.metrics, null, 2)));
  if (data.manual) { const m = block("manual", data.manual); m.open = false; parts.push(m); }
  data.steps.forEach((s, i) => {
    const div = el("div", null, "step"); div.id = "step-" + s.step;
    const head = el("h3", "step " + s.step + " ");
    head.appendChild(el("span", s.valid ? "valid" : "invalid action", s.valid ? "good" : "bad"));
    div.appendChild(head);
    const facts = el("p", "reward " + fmt(s.reward) + " · score " + fmt(s.score) + " · tokens " +
      JSON.stringify(s.usage || {}) + " · latency " + fmt((s.timing || {}).latency_s) + " s", "meta");
    div.appendChild(facts);
    if (data.step_pictures && data.step_pictures[i]) div.appendChild(picture(data.step_pictures[i], "step picture"));
    // the URL was checked when the site was written: the frame lies inside the run
    if (data.frames && data.frames[i]) div.appendChild(picture(data.frames[i], "frame the agent saw"));
    div.appendChild(block("observation", s.observation));
    if (s.messages) { const m = block("messages sent", s.messages.map(x => "[" + x.role + "]\n" + (typeof x.content === "string" ? x.content : JSON.stringify(x.content))).join("\n\n")); m.open = false; div.appendChild(m); }
    div.appendChild(block("raw output", s.raw_output === null ? "" : s.raw_output));
    div.appendChild(el("p", "parsed action: " + (s.action === null ? "(none)" : s.action) + " · executed: " + s.executed));
    box.appendChild(div);
  });
  box.prepend(...parts);
}

// Nothing from the address goes into the data file's path but numbers: the task's folder comes from tasks.js.
async function initEpisode() {
  const params = new URLSearchParams(location.hash.slice(1));
  const run = Number(params.get("r") || 0), task = params.get("t"), index = Number(params.get("i"));
  const box = document.getElementById("episode");
  if (!task || !Number.isInteger(run) || run < 0 || params.get("i") === null || !Number.isInteger(index)) {
    box.appendChild(el("p", "no episode selected", "bad")); return;
  }
  try {
    await loadScript("data/r" + run + "/tasks.js");
    const folders = PB.tasks[run] || {};
    if (!Object.prototype.hasOwnProperty.call(folders, task)) throw new Error("no episode of this task in run " + run);
    const folder = folders[task];
    const got = new Promise(resolve => { PB.pending[run + "|" + folder + "|" + index] = resolve; });
    await loadScript("data/r" + run + "/ep/" + folder.split("/").map(encodeURIComponent).join("/") + "/" + index + ".js");
    renderEpisode(run, await got);
  } catch (e) { box.appendChild(el("p", e.message, "bad")); }
}
window.addEventListener("hashchange", () => location.reload());
document.addEventListener("DOMContentLoaded", () => {
  if (document.body.dataset.page === "index") initIndex();
  else if (document.body.dataset.page === "episode") initEpisode();
});
