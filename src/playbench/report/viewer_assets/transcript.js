// playbench viewer: one episode's transcript (episode.html) and the same episode across runs (compare.html).
// Episode data comes from compressed shards (data/r<run>/s<n>.js), inflated by the browser's own
// DecompressionStream; one step is drawn at a time, so a 5,000-step episode is as light as a 5-step one.
"use strict";
const S = { step: 0, obs: 1, out: 2, action: 3, executed: 4, valid: 5, reward: 6, score: 7, done: 8, msgs: 9,
  frame: 10, usage: 11, extra: 12, latency: 13, picture: 14 };
const shardCache = {};

async function inflate(b64) {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}
// Nothing from the address goes into a file name but numbers: the shard comes from episodes.js.
function loadShard(run, shard) {
  const key = run + "|" + shard;
  if (!shardCache[key]) {
    shardCache[key] = (async () => {
      const got = new Promise(resolve => { PB.waiting[key] = resolve; });
      await loadScript("data/r" + Number(run) + "/s" + Number(shard) + ".js");
      return inflate(await got);
    })();
  }
  return shardCache[key];
}
async function loadRunRows(run) {
  if (!PB.episodes[run]) await loadScript("data/r" + Number(run) + "/episodes.js");
  return PB.episodes[run] || [];
}
async function findEpisode(run, task, index) {
  const row = (await loadRunRows(run)).find(r => r[COL.task] === task && r[COL.index] === index);
  if (!row) return null;
  return (await loadShard(run, row[COL.shard]))[row[COL.pos]];
}
function hashParams() { return new URLSearchParams(location.hash.slice(1)); }

function block(title, text, open, cls) {
  const d = el("details", null, cls); d.open = open !== false;
  d.appendChild(el("summary", title));
  d.appendChild(el("pre", text));
  return d;
}
function svgImage(svg, alt) {
  // a suite's own SVG (its text XML-escaped), shown as an image: an <img> never runs scripts
  const img = el("img", null, "picture"); img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svg); img.alt = alt;
  return img;
}
function usageText(u) {
  if (!u || !Object.keys(u).length) return "-";
  const n = x => Number(x || 0).toLocaleString("en-US");
  const parts = [n(u.input_tokens) + " in", n(u.output_tokens) + " out"];
  const cached = (u.cached_input_tokens || 0) + (u.cached_output_tokens || 0);
  if (cached) parts.push(n(cached) + " cached");
  // the provider's prompt cache: part of the input, priced at its cached rate
  if (u.cache_read_tokens !== undefined) parts.push(n(u.cache_read_tokens) + " read from the prompt cache" +
    (u.input_tokens ? " (" + Math.round(100 * u.cache_read_tokens / u.input_tokens) + "% of input)" : ""));
  if (u.calls !== undefined) parts.push(n(u.calls) + " calls");
  // answers without token counts: their tokens count as 0, so the cost is only a lower bound
  const unreported = u.tokens_unreported || 0;
  if (u.cost_micro_usd !== undefined) parts.push(unreported ? (u.cost_micro_usd ? "≥ " + money(u.cost_micro_usd) : "n/a") : money(u.cost_micro_usd));
  if (unreported) parts.push("usage not reported for " + n(unreported) + (unreported === 1 ? " answer" : " answers"));
  return parts.join(" · ");
}
// Nested values in words: "go forward: 2, pick up: 1", not JSON.
function valueText(v) {
  if (v === null || v === undefined) return "-";
  if (Array.isArray(v)) return v.length ? v.map(valueText).join(", ") : "none";
  if (typeof v === "object") return Object.entries(v).map(([k, x]) => k + ": " + valueText(x)).join(", ") || "none";
  return fmt(v);
}
function keyTable(obj, cls) {
  const t = el("table", null, cls);
  for (const [k, v] of Object.entries(obj)) {
    const tr = el("tr"); tr.appendChild(el("th", k, "l")); tr.appendChild(el("td", valueText(v), "l")); t.appendChild(tr);
  }
  return t;
}
function messageText(ep, m) {
  const body = m[1];
  if (typeof body === "number") return ep.texts[body];
  const content = body.json;
  if (Array.isArray(content)) return content.map(p => (p && typeof p.text === "string") ? p.text : "[" + ((p && p.type) || "part") + "]").join("\n");
  return JSON.stringify(content, null, 2);
}
function messageNode(ep, id) {
  const m = ep.messages[id];
  const preamble = preambleIds(ep).has(id);
  const role = String(m[0]);
  const text = messageText(ep, m);
  const images = m[2] && m[2].length ? " + " + m[2].length + " image(s)" : "";
  const d = el("details", null, "msg role-" + (["system", "user", "assistant", "tool"].includes(role) ? role : "other"));
  d.open = role !== "system" && !preamble;
  d.appendChild(el("summary", role + images + (preamble ? " (system prompt or manual)" : "") + " · " + text.length + " characters"));
  d.appendChild(el("pre", text));
  return d;
}

// ---- one step ----------------------------------------------------------------------------------------
function stepView(ep, k) {
  const rec = ep.record, s = ep.steps[k];
  const div = el("div", null, "step"); div.id = "step-" + s[S.step];
  const head = el("h3", "step " + s[S.step] + " ");
  head.appendChild(el("span", s[S.valid] ? "valid" : "invalid action", s[S.valid] ? "good" : "bad"));
  if (s[S.done]) head.appendChild(el("span", " · episode ends", "meta"));
  div.appendChild(head);
  div.appendChild(el("p", "reward " + fmt(s[S.reward]) + " · score " + fmt(s[S.score]) + " · tokens " +
    usageText(s[S.usage]) + " · latency " + fmt(s[S.latency]) + " s", "meta facts"));
  const pics = el("div", null, "pictures");
  // the URL was checked when the site was written: the frame lies inside the run
  if (s[S.frame]) { const img = el("img", null, "picture frame"); img.src = s[S.frame]; img.alt = "frame the agent saw"; pics.appendChild(img); }
  else if (s[S.picture] !== null && s[S.picture] !== undefined) pics.appendChild(svgImage(ep.texts[s[S.picture]], "step picture"));
  else {
    const drawn = PBPictures.draw(PB.pictures.get(rec.task), ep.texts[s[S.obs]]);
    if (drawn) pics.appendChild(drawn);
  }
  if (pics.childNodes.length) div.appendChild(pics);
  const ids = s[S.msgs];
  if (ids && ids.length) {
    const prev = k > 0 && ep.steps[k - 1][S.msgs] ? new Set(ep.steps[k - 1][S.msgs]) : new Set();
    const old = ids.filter(i => prev.has(i)), fresh = ids.filter(i => !prev.has(i));
    const box = el("div", null, "messages");
    box.appendChild(el("h4", "messages sent (" + ids.length + ")"));
    if (old.length) {
      const d = el("details", null, "earlier");
      d.appendChild(el("summary", old.length + " message(s) also sent at the previous step"));
      old.forEach(i => d.appendChild(messageNode(ep, i)));
      box.appendChild(d);
    }
    fresh.forEach(i => box.appendChild(messageNode(ep, i)));
    div.appendChild(box);
    div.appendChild(block("observation", ep.texts[s[S.obs]], false, "observation"));
  } else {
    div.appendChild(block("observation", ep.texts[s[S.obs]], true, "observation"));
  }
  const out = block("model output", s[S.out] === null ? "(no model output: " + rec.agent + " agent)" : ep.texts[s[S.out]], true, "msg role-assistant output");
  div.appendChild(out);
  div.appendChild(el("p", "parsed action: " + (s[S.action] === null ? "(none)" : s[S.action]) + " · executed: " + s[S.executed], "action"));
  if (s[S.extra]) { const d = el("details"); d.appendChild(el("summary", "agent notes")); d.appendChild(keyTable(s[S.extra])); div.appendChild(d); }
  return div;
}

// ---- the step navigator: buttons, a slider, the keyboard and a strip of every step --------------------
function navigator(count, onMove) {
  const nav = el("div", null, "nav");
  const first = el("button", "« first"), prev = el("button", "‹ prev"), next = el("button", "next ›"), last = el("button", "last »");
  first.title = "first step (Home)"; prev.title = "previous step (← or k)"; next.title = "next step (→ or j)"; last.title = "last step (End)";
  const slider = el("input"); slider.type = "range"; slider.min = 0; slider.max = Math.max(0, count - 1); slider.value = 0;
  slider.className = "slider"; slider.setAttribute("aria-label", "step");
  const label = el("span", "", "where");
  nav.append(first, prev, slider, next, last, label);
  let at = 0;
  const go = k => {
    at = Math.max(0, Math.min(count - 1, k));
    slider.value = at; label.textContent = (at + 1) + " of " + count;
    prev.disabled = first.disabled = at === 0; next.disabled = last.disabled = at >= count - 1;
    onMove(at);
  };
  first.onclick = () => go(0); prev.onclick = () => go(at - 1); next.onclick = () => go(at + 1); last.onclick = () => go(count - 1);
  slider.addEventListener("input", () => go(Number(slider.value)));
  document.addEventListener("keydown", ev => {
    if (ev.target && ["INPUT", "TEXTAREA", "SELECT"].includes(ev.target.tagName) && ev.target !== slider) return;
    const moves = { ArrowRight: at + 1, j: at + 1, ArrowLeft: at - 1, k: at - 1, Home: 0, End: count - 1, PageDown: at + 10, PageUp: at - 10 };
    if (ev.key in moves) { ev.preventDefault(); go(moves[ev.key]); }
  });
  return { node: nav, go, at: () => at };
}
// "find in this episode": Enter goes to the next step (after the one shown, wrapping) whose text holds it.
function finder(ep, nav) {
  const box = el("div", null, "finder");
  const input = el("input"); input.type = "search"; input.placeholder = "find in this episode (Enter: next step)";
  const said = el("span", "", "meta");
  box.append(input, said);
  input.addEventListener("keydown", ev => {
    if (ev.key !== "Enter") return;
    const needle = input.value.trim().toLowerCase();
    if (!needle) return;
    const textHit = ep.texts.map(t => t.toLowerCase().includes(needle));
    const msgHit = ep.messages.map(m => (typeof m[1] === "number" ? textHit[m[1]] : JSON.stringify(m[1]).toLowerCase().includes(needle)));
    const hit = s => textHit[s[S.obs]] || (s[S.out] !== null && textHit[s[S.out]]) || (s[S.msgs] || []).some(i => msgHit[i]);
    const n = ep.steps.length;
    const total = ep.steps.filter(hit).length;
    for (let d = 1; d <= n; d++) {
      const k = (nav.at() + d) % n;
      if (hit(ep.steps[k])) { nav.go(k); said.textContent = " " + total + " step(s) hold it"; return; }
    }
    said.textContent = " no step holds it";
  });
  return box;
}
// One pixel column per step (valid, invalid, rewarded): where things happened in a long episode; click to go.
function strip(steps, go) {
  const canvas = el("canvas", null, "strip");
  const width = Math.min(1200, Math.max(200, steps.length)); canvas.width = width; canvas.height = 14;
  const ctx = canvas.getContext("2d");
  for (let x = 0; x < width; x++) {
    const s = steps[Math.floor(x * steps.length / width)];
    ctx.fillStyle = !s[S.valid] ? "#d62728" : s[S.reward] > 0 ? "#2ca02c" : s[S.reward] < 0 ? "#ff7f0e" : "#c5ccd6";
    ctx.fillRect(x, 0, 1, 14);
  }
  canvas.title = "every step: grey valid, red invalid, green rewarded, orange penalised; click to go there";
  canvas.addEventListener("click", ev => {
    const r = canvas.getBoundingClientRect();
    go(Math.floor((ev.clientX - r.left) / r.width * steps.length));
  });
  return canvas;
}

function summaryTable(ep) {
  const rec = ep.record;
  const fields = { status: rec.status, seed: rec.seed, agent: rec.agent, model: rec.model === null ? "none (reference agent)" : rec.model,
    score: fmt(rec.score), completion: fmt(rec.completion), progress: fmt(rec.progress), reward: fmt(rec.reward),
    steps: rec.steps, "invalid actions": rec.invalid_actions, "tokens and cost": usageText(rec.usage),
    duration: rec.timing && rec.timing.duration_s !== undefined ? fmt(rec.timing.duration_s) + " s" : "-" };
  if (rec.error) fields.error = rec.error;
  return keyTable(fields, "summary");
}
// The system prompt and manual: system messages, else a first message sent again at the next step.
function preambleIds(ep) {
  if (ep.preamble) return ep.preamble;
  const first = ep.steps.length ? ep.steps[0][S.msgs] : null;
  ep.preamble = new Set();
  if (!first || !first.length) return ep.preamble;
  first.filter(i => ep.messages[i][0] === "system").forEach(i => ep.preamble.add(i));
  const second = ep.steps.length > 1 ? ep.steps[1][S.msgs] : null;
  if (!ep.preamble.size && second && second[0] === first[0]) ep.preamble.add(first[0]);
  return ep.preamble;
}
function systemText(ep) {
  const ids = Array.from(preambleIds(ep));
  return ids.length ? ids.map(i => messageText(ep, ep.messages[i])).join("\n\n") : null;
}

function renderEpisode(run, ep, startStep) {
  const box = document.getElementById("episode");
  const rec = ep.record;
  box.appendChild(el("h2", short(rec.task) + " — episode " + rec.index));
  const who = PB.runs[run] ? PB.runs[run] : null;
  if (who) box.appendChild(el("p", "run " + run + ": " + runName(who) + " · " + short(who.run_id), "meta"));
  (ep.errors || []).forEach(msg => box.appendChild(el("p", msg, "bad error")));
  if (PB.runs.length > 1) box.appendChild(link("see this episode in every run, side by side", compareHref(rec.task, rec.index)));
  box.appendChild(summaryTable(ep));
  if (ep.picture) box.appendChild(svgImage(ep.picture, "episode picture"));
  const sys = systemText(ep);
  if (sys) box.appendChild(block("system prompt and manual (" + sys.length + " characters)", sys, false, "msg role-system"));
  if (rec.instance && Object.keys(rec.instance).length) { const d = el("details"); d.appendChild(el("summary", "instance")); d.appendChild(keyTable(rec.instance)); box.appendChild(d); }
  if (rec.metrics && Object.keys(rec.metrics).length) { const d = el("details"); d.appendChild(el("summary", "metrics")); d.appendChild(keyTable(rec.metrics)); box.appendChild(d); }
  if (!ep.steps.length) { box.appendChild(el("p", "no step recorded", "meta")); return; }
  const holder = el("div", null, "current");
  const nav = navigator(ep.steps.length, k => {
    holder.replaceChildren(stepView(ep, k));
    const p = hashParams(); p.set("s", ep.steps[k][S.step]); history.replaceState(null, "", "#" + p.toString());
  });
  box.append(nav.node, strip(ep.steps, nav.go), finder(ep, nav), holder);
  const at = ep.steps.findIndex(s => s[S.step] === startStep);
  nav.go(at >= 0 ? at : 0);
}

async function initEpisode() {
  const params = hashParams();
  const run = Number(params.get("r") || 0), task = params.get("t"), index = Number(params.get("i"));
  const box = document.getElementById("episode");
  if (!task || !Number.isInteger(run) || run < 0 || params.get("i") === null || !Number.isInteger(index)) {
    box.appendChild(el("p", "no episode selected", "bad")); return;
  }
  try {
    const ep = await findEpisode(run, task, index);
    if (!ep) throw new Error("no such episode in run " + run);
    renderEpisode(run, ep, Number(params.get("s")));
  } catch (e) { box.appendChild(el("p", e.message, "bad")); }
}

// ---- the same episode in every run (compare.html#t=&i=) -----------------------------------------------
async function initCompare() {
  const params = hashParams();
  const task = params.get("t"), index = Number(params.get("i"));
  const box = document.getElementById("compare");
  if (!task || !Number.isInteger(index)) { box.appendChild(el("p", "no episode selected", "bad")); return; }
  box.appendChild(el("h2", short(task) + " — episode " + index + " in " + PB.runs.length + " runs"));
  const eps = [];
  for (let run = 0; run < PB.runs.length; run++) {
    try { eps.push(await findEpisode(run, task, index)); } catch (e) { eps.push({ failed: e.message }); }
  }
  const grid = el("div", null, "side"); grid.style.gridTemplateColumns = "repeat(" + eps.length + ", minmax(0, 1fr))";
  const holders = eps.map((ep, run) => {
    const col = el("div", null, "column");
    const r = PB.runs[run];
    col.appendChild(el("h3", "run " + run + ": " + runName(r)));
    col.appendChild(el("p", short(r.run_id), "meta"));
    const holder = el("div", null, "current");
    if (!ep || ep.failed) col.appendChild(el("p", ep ? ep.failed : "this run has no such episode", "bad"));
    else {
      const link_ = link("open alone", episodeHref(run, task, index)); col.appendChild(link_);
      col.appendChild(summaryTable(ep));
      if (ep.picture) col.appendChild(svgImage(ep.picture, "episode picture"));
      col.appendChild(holder);
    }
    grid.appendChild(col);
    return holder;
  });
  const longest = Math.max(1, ...eps.map(ep => (ep && ep.steps ? ep.steps.length : 0)));
  const nav = navigator(longest, k => eps.forEach((ep, run) => {
    if (!ep || !ep.steps) return;
    holders[run].replaceChildren(k < ep.steps.length ? stepView(ep, k) : el("p", "the episode ended after " + ep.steps.length + " steps", "meta"));
  }));
  box.append(divergence(eps, nav.go), nav.node, grid);
  nav.go(0);
}
// Where the runs part ways: the first step whose executed action differs from the first run's.
function divergence(eps, go) {
  const played = eps.filter(ep => ep && ep.steps);
  const p = el("p", null, "divergence");
  if (played.length < 2) return p;
  const base = played[0].steps;
  let first = null;
  for (const ep of played.slice(1)) {
    const n = Math.min(base.length, ep.steps.length);
    let k = 0;
    while (k < n && base[k][S.executed] === ep.steps[k][S.executed]) k++;
    if (k < n || base.length !== ep.steps.length) first = first === null ? k : Math.min(first, k);
  }
  if (first === null) { p.textContent = "every run executed the same actions"; return p; }
  const at = played.map(ep => ep.steps[first]).find(Boolean);
  p.appendChild(el("span", "the runs first execute different actions at step " + (at ? at[S.step] : first) + " "));
  const b = el("button", "go there"); b.onclick = () => go(first); p.appendChild(b);
  return p;
}
window.addEventListener("hashchange", ev => {
  const a = new URLSearchParams(new URL(ev.oldURL).hash.slice(1)), b = hashParams();
  if (a.get("r") !== b.get("r") || a.get("t") !== b.get("t") || a.get("i") !== b.get("i")) location.reload();
});
