// playbench viewer: pictures drawn from the observation text a step recorded, for games without a frame.
// Each task names its picture kind (Task.picture, written to data/pictures.js); this file knows no task:
//  - hanoi: the three rods;  - tty: the map the observation carries (NetHack, MiniHack, Boxoban);
//  - facing-map (BabyAI), screen-map (Baba Is AI), compass-map (Messenger, Crafter), block-map (the voxel
//    world): a local map around the agent, one mark per object the text places. Where the text gives only a
//    compass direction and a distance (diagonals of compass-map, every block of block-map) the mark's place
//    is approximate: drawn dashed.
// Everything is built with DOM calls and textContent, so record text stays text.
"use strict";
const PBPictures = (() => {
  const NS = "http://www.w3.org/2000/svg";
  function svgEl(tag, attrs, text) {
    const n = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, String(v));
    if (text !== undefined) n.textContent = visible(String(text));
    return n;
  }
  const COLOURS = ["#e45756", "#f58518", "#54a24b", "#4c78a8", "#b279a2", "#9d755d", "#eeca3b", "#72b7b2"];
  function colour(name) { let h = 0; for (const c of name) h = (h * 31 + c.charCodeAt(0)) >>> 0; return COLOURS[h % COLOURS.length]; }

  // ---- Hanoi ----------------------------------------------------------------------------------------
  function hanoi(text) {
    const rods = {};
    for (const m of text.matchAll(/^- ([ABC]): \|bottom, \[([0-9, ]*)\], top\|$/gm)) {
      rods[m[1]] = m[2].trim() ? m[2].split(",").map(x => Number(x.trim())) : [];
    }
    if (Object.keys(rods).length !== 3) return null;
    const disks = Math.max(0, ...Object.values(rods).flat()) + 1;
    const width = 360, height = 40 + 18 * disks, unit = 90 / disks;
    const svg = svgEl("svg", { width, height, viewBox: `0 0 ${width} ${height}`, class: "drawn hanoi", role: "img" });
    svg.appendChild(svgEl("title", {}, "Hanoi rods"));
    svg.appendChild(svgEl("rect", { x: 0, y: height - 12, width, height: 12, fill: "#888" }));
    ["A", "B", "C"].forEach((name, i) => {
      const cx = 60 + i * 120;
      svg.appendChild(svgEl("rect", { x: cx - 3, y: 20, width: 6, height: height - 32, fill: "#555" }));
      svg.appendChild(svgEl("text", { x: cx, y: 14, "text-anchor": "middle", "font-size": 12 }, name));
      (rods[name] || []).forEach((disk, level) => {
        const w = 20 + unit * (disk + 1);
        svg.appendChild(svgEl("rect", { x: (cx - w / 2).toFixed(1), y: height - 12 - 18 * (level + 1), width: w.toFixed(1),
          height: 16, rx: 4, fill: COLOURS[disk % 6], class: "disk" }));
      });
    });
    return svg;
  }

  // ---- the tty map of NetHack, MiniHack and Boxoban -----------------------------------------------------
  function tty(text) {
    const at = text.search(/^map:\n/m);
    if (at < 0) return null;
    const lines = [];
    for (const line of text.slice(at + 5).split("\n")) {
      if (/^[a-z][a-z ]*:$/.test(line)) break;  // the next section
      lines.push(line);
    }
    while (lines.length && !lines[0].trim()) lines.shift();
    while (lines.length && !lines[lines.length - 1].trim()) lines.pop();
    if (!lines.length) return null;
    const pre = el("pre", null, "drawn tty");
    const body = lines.join("\n");
    // the hero stands out; every other glyph is the text as the game printed it
    body.split("@").forEach((part, i) => {
      if (i) pre.appendChild(el("span", "@", "hero"));
      pre.appendChild(document.createTextNode(visible(part)));
    });
    pre.title = "the map as the game printed it";
    return pre;
  }

  // ---- local maps: objects placed around the agent ------------------------------------------------
  const COMPASS = { north: [0, -1], south: [0, 1], east: [1, 0], west: [-1, 0] };
  function compass(dir, d, manhattan) {
    const parts = dir.split("-").map(p => COMPASS[p]).filter(Boolean);
    if (!parts.length) return null;
    if (parts.length === 1) return { dx: parts[0][0] * d, dy: parts[0][1] * d, exact: true };
    const a = manhattan ? d / 2 : d / Math.SQRT2;  // the split between the two axes is not in the text
    return { dx: Math.round((parts[0][0] + parts[1][0]) * a), dy: Math.round((parts[0][1] + parts[1][1]) * a), exact: false };
  }
  function babyai(text) {
    const items = [];
    for (const line of text.split("\n")) {
      const m = line.match(/^(?:- )?(?:a |an |the )?(.+?) (\d+) steps? (forward|left|right)(?: and (\d+) steps? (forward|left|right))?$/);
      if (!m) continue;
      const place = { dx: 0, dy: 0, exact: true };
      [[m[2], m[3]], [m[4], m[5]]].forEach(([n, dir]) => {
        if (!n) return;
        if (dir === "forward") place.dy -= Number(n); else place.dx += dir === "right" ? Number(n) : -Number(n);
      });
      items.push({ name: m[1], ...place });
    }
    return items;
  }
  function babaisai(text) {
    const items = [];
    for (const line of text.split("\n")) {
      const m = line.match(/^(.+?) ((?:\d+ steps? (?:to the )?(?:left|right|up|down)(?: and )?)+)$/);
      if (!m) continue;
      const place = { dx: 0, dy: 0, exact: true };
      for (const p of m[2].matchAll(/(\d+) steps? (?:to the )?(left|right|up|down)/g)) {
        const n = Number(p[1]);
        if (p[2] === "left") place.dx -= n; else if (p[2] === "right") place.dx += n;
        else if (p[2] === "up") place.dy -= n; else place.dy += n;
      }
      items.push({ name: m[1].replace(/`/g, ""), ...place });
    }
    return items;
  }
  function gridWorld(text) {  // Messenger and Crafter: "- name N steps to your south-west"
    const items = [];
    for (const m of text.matchAll(/^- (.+?) (\d+) steps? (?:to your ([a-z-]+)|with you)$/gm)) {
      const d = Number(m[2]);
      const place = m[3] ? compass(m[3], d, true) : { dx: 0, dy: 0, exact: true };
      if (place) items.push({ name: m[1], ...place });
    }
    return items;
  }
  function voxel(text) {  // " - grass block, 1.04 blocks away, below you to south-west"
    const items = [];
    const around = text.split(/^You see:/m)[0];
    for (const m of around.matchAll(/^ - ([^,\n]+), ([0-9.]+) blocks away, (above you|below you|at your level)? ?to ([a-z-]+)$/gm)) {
      const place = m[4] === "front" ? { dx: 0, dy: 0, exact: false } : compass(m[4], Number(m[2]), false);
      if (place) items.push({ name: m[1] + (m[3] === "above you" ? " ↑" : m[3] === "below you" ? " ↓" : ""), ...place, exact: false });
    }
    return items;
  }
  function localMap(items, title, facing) {
    if (!items.length) return null;
    const radius = Math.min(9, Math.max(3, ...items.map(i => Math.max(Math.abs(i.dx), Math.abs(i.dy)))));
    const cell = 30, size = (2 * radius + 1) * cell;
    const svg = svgEl("svg", { width: size, height: size, viewBox: `0 0 ${size} ${size}`, class: "drawn localmap", role: "img" });
    svg.appendChild(svgEl("title", {}, title));
    svg.appendChild(svgEl("rect", { x: 0, y: 0, width: size, height: size, fill: "#fafbfc", stroke: "#ccd" }));
    for (let i = 1; i < 2 * radius + 1; i++) {
      svg.appendChild(svgEl("line", { x1: i * cell, y1: 0, x2: i * cell, y2: size, stroke: "#eef" }));
      svg.appendChild(svgEl("line", { x1: 0, y1: i * cell, x2: size, y2: i * cell, stroke: "#eef" }));
    }
    const centre = radius * cell;
    const used = {};
    for (const it of items) {
      const cx = Math.max(-radius, Math.min(radius, it.dx)), cy = Math.max(-radius, Math.min(radius, it.dy));
      const key = cx + "," + cy; const stack = used[key] = (used[key] || 0) + 1;
      const x = centre + cx * cell + 2 + (stack - 1) * 4, y = centre + cy * cell + 2 + (stack - 1) * 4;
      const g = svgEl("g", { class: "mark" + (it.exact ? "" : " approx") });
      g.appendChild(svgEl("title", {}, it.name + (it.exact ? "" : " (place approximate: the text gives a direction and a distance)")));
      g.appendChild(svgEl("rect", { x, y, width: cell - 4, height: cell - 4, rx: 4, fill: colour(it.name), "fill-opacity": 0.85,
        stroke: "#333", "stroke-dasharray": it.exact ? "" : "3 2" }));
      g.appendChild(svgEl("text", { x: x + (cell - 4) / 2, y: y + cell / 2 + 1, "text-anchor": "middle", "font-size": 9, fill: "#fff" },
        it.name.replace(/^(rule |an? |the )/, "").slice(0, 5)));
      svg.appendChild(g);
    }
    const you = svgEl("g", { class: "you" });
    you.appendChild(svgEl("title", {}, "the agent" + (facing ? ", facing " + facing : "")));
    const c = centre + cell / 2;
    you.appendChild(facing === "up" ? svgEl("polygon", { points: `${c},${c - 11} ${c - 9},${c + 9} ${c + 9},${c + 9}`, fill: "#d62728" })
      : svgEl("circle", { cx: c, cy: c, r: 9, fill: "#d62728" }));
    svg.appendChild(you);
    const fig = el("figure", null, "localmap");
    fig.append(svg, el("figcaption", title, "meta"));
    return fig;
  }

  // kind: the task's picture kind (undefined: none)
  function draw(kind, text) {
    if (typeof text !== "string") return null;
    try {
      if (kind === "hanoi") return hanoi(text);
      if (kind === "tty") return tty(text);
      if (kind === "facing-map") return localMap(babyai(text), "local map (up = the way the agent faces)", "up");
      if (kind === "screen-map") return localMap(babaisai(text), "local map (Baba Is AI: the agent, 'you', in the centre)");
      if (kind === "compass-map") return localMap(gridWorld(text), "local map (north up; dashed: place approximate)");
      if (kind === "block-map") return localMap(voxel(text), "blocks around you (north up; places approximate)");
    } catch (e) { return el("p", "no picture: " + e.message, "meta"); }
    return null;
  }
  return { draw };
})();
