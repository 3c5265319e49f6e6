// The board as SVG, following the district layout of the board data (positions: rows offset like
// hex cells, docs/rules.md §2). Shared by the game, solo and replay pages. No external code.
"use strict";
const COLOURS = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd"];
// Seats are labelled as every pi-env command labels them (pi_env.records.types.seat_label): P0, P1, ...
function seatLabel(i) { return `P${i}`; }
// "1 spot", "2 spots": a count and its word, plural from two on (and for none).
function count(n, word) { return `${n} ${word}${n === 1 ? "" : "s"}`; }
// A seat's name as this page shows it: one "(you)" mark, on this page's own seat only. A game with
// one person stores its default name as "P0 (you)", one with several "P0 (human)": on the page of
// that seat both read "P0 (you)"; on any other page (another seat, a spectator) "P0 (human)".
function youName(view, i, names) {
  const name = (names || view.names)[i];  // the replay's views carry no names: they come apart
  if (name === undefined) return name;
  const mine = view.you === i;
  if (/ \(you\)$/.test(name)) return mine ? name : name.replace(/ \(you\)$/, " (human)");
  if (mine) return / \(human\)$/.test(name) ? name.replace(/ \(human\)$/, " (you)") : `${name} (you)`;
  return name;
}
const SVGNS = "http://www.w3.org/2000/svg";
const W = 176, H = 203, SX = 176, SY = 152;

function el(tag, attrs, parent, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
function h(tag, attrs, parent, text) {
  const e = document.createElement(tag);
  for (const k in attrs || {}) {
    // style through the DOM: the Content-Security-Policy refuses style attributes
    if (k === "class") e.className = attrs[k]; else if (k === "style") e.style.cssText = attrs[k];
    else e.setAttribute(k, attrs[k]);
  }
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
function typeOf(x) { return x < 12 ? "suspect" : x < 22 ? "evidence" : "location"; }
function caseText(c) { return c ? `${c.suspect} / ${c.evidence} / ${c.location}` : "?"; }

// view: {tiles, spots, traces, investigators, players}; opts: {clues: Set, districts: Set,
// nothing: Set, lit: Set, onAction(a)}
function drawBoard(svg, board, view, opts) {
  opts = opts || {};
  // a redraw keeps the keyboard focus on the same action when it is still offered
  const focused = svg.contains(document.activeElement) ? document.activeElement.getAttribute("data-action") : null;
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const pos = board.positions;
  const xs = pos.map(p => p[0]), ys = pos.map(p => p[1]);
  const minx = Math.min(...xs), maxx = Math.max(...xs), miny = Math.min(...ys), maxy = Math.max(...ys);
  const width = (maxx - minx) * SX + W + 20, height = (maxy - miny) * SY + H + 20;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const cx = d => (pos[d][0] - minx) * SX + W / 2 + 10;
  const cy = d => (pos[d][1] - miny) * SY + H / 2 + 10;
  for (const [a, b] of board.edges) el("line", {x1: cx(a), y1: cy(a), x2: cx(b), y2: cy(b), class: "edge"}, svg);
  const marks = {};
  const P = view.players || 1;
  for (let i = 0; i < P; i++) {
    for (const x of (view.spots && view.spots[i]) || []) (marks[x] = marks[x] || []).push([i, "S"]);
    for (const x of (view.traces && view.traces[i]) || []) (marks[x] = marks[x] || []).push([i, "T"]);
  }
  const invs = {};
  for (const inv of view.investigators || []) (invs[inv.district] = invs[inv.district] || []).push(inv);
  const clues = opts.clues || new Set(), districts = opts.districts || new Set();
  const nothing = opts.nothing || new Set(), lit = opts.lit || new Set();
  const last = opts.last || null;  // the last move: {element} or {district}, outlined
  board.districts.forEach((name, d) => {
    const g = el("g", {class: "district", "data-district": d}, svg);
    const x0 = cx(d), y0 = cy(d);
    const pts = [];
    for (let k = 0; k < 6; k++) {
      const ang = Math.PI / 180 * (60 * k - 90);
      pts.push(`${x0 + (W / 2) * Math.cos(ang) / Math.cos(Math.PI / 6)},${y0 + (H / 2) * Math.sin(ang)}`);
    }
    const lastHere = last && (last.district === d || (last.element !== undefined && (last.element === 22 + d ||
      view.tiles[d].suspect === last.element || view.tiles[d].evidence === last.element)));
    el("polygon", {points: pts.join(" "), class: "hex" + (districts.has(d) ? " inv-ok" : "") + (lastHere ? " last" : "")}, g);
    const rows = [[22 + d, y0 - 52, true], [view.tiles[d].suspect, y0 - 14], [view.tiles[d].evidence, y0 + 12]];
    const described = [name];
    rows.forEach(([x, y, isName], r) => {
      const left = x0 - 70;
      const label = r === 1 ? "S: " : r === 2 ? "E: " : "";
      if (x === null || x === undefined) { el("text", {x: left, y, class: "tile blank"}, g, label + "—"); return; }
      let cls = isName ? "dname" : "tile";
      if (nothing.has(x)) cls += " nothing";
      if (lit.has(x)) cls += " lit";
      if (last && last.element === x) cls += " lastmove";
      const t = el("text", {x: left, y, class: cls, "data-element": x}, g, label + board.elements[x]);
      const list = marks[x] || [];
      // markers never cover the words: on a tile row they sit right of a 98 px column, and a longer
      // name is narrowed to fit it; a district name's markers go on their own line below it
      const room = 98;
      if (!isName && list.length && t.getComputedTextLength && t.getComputedTextLength() > room) {
        t.setAttribute("textLength", room);
        t.setAttribute("lengthAdjust", "spacingAndGlyphs");
      }
      const said = list.map(([i, kind]) => `${seatLabel(i)} ${kind === "S" ? "spot" : "trace"}`);
      if (!isName) described.push(`${r === 1 ? "suspect" : "evidence"} ${board.elements[x]}` + (said.length ? ` (${said.join(", ")})` : ""));
      else if (said.length) described.push(`location markers: ${said.join(", ")}`);
      if (clues.has(x)) {
        t.setAttribute("class", cls + " clickable");
        t.setAttribute("data-action", x);
        actionable(t, `take the clue card ${board.elements[x]}`, () => opts.onAction && opts.onAction(x));
        el("title", {}, t, `clue ${board.elements[x]}`);
      }
      list.forEach(([i, kind], k) => {
        const mx = isName ? left + 8 + k * 15 : x0 + 34 + 4 + (k % 3) * 15;
        const my = isName ? y + 17 : y - 4 + Math.floor(k / 3) * 13;
        const m = el("g", {class: "marker", "data-player": i, "data-kind": kind}, g);
        if (kind === "S") el("circle", {cx: mx, cy: my, r: 6.5, fill: COLOURS[i]}, m);
        else el("rect", {x: mx - 6, y: my - 6, width: 12, height: 12, rx: 2, fill: COLOURS[i], opacity: 0.8}, m);
        el("text", {x: mx, y: my + 3.3, "text-anchor": "middle"}, m, kind);
        el("title", {}, m, `${seatLabel(i)}: ${kind === "S" ? "spot" : "trace"} on ${board.elements[x]}`);
      });
    });
    (invs[d] || []).forEach((inv, k) => {
      const ix = x0 - 72 + (k % 3) * 49, iy = y0 + 26 + Math.floor(k / 3) * 17;
      const gi = el("g", {class: "inv", "data-player": inv.player}, g);
      el("rect", {x: ix, y: iy, width: 46, height: 15, rx: 2, fill: COLOURS[inv.player]}, gi);
      el("text", {x: ix + 23, y: iy + 11, "text-anchor": "middle"}, gi, `${inv.spots}S ${inv.traces}T`);
      const sup = ["suspect", "evidence", "location"].filter((t, j) => inv.suppressed && inv.suppressed[j]);
      const said = `${seatLabel(inv.player)}'s investigator: ${count(inv.spots, "spot")}, ${count(inv.traces, "trace")}` +
         (sup.length ? ` (${sup.join(", ")} not counted)` : "");
      el("title", {}, gi, said);
      described.push(said);
    });
    if (districts.has(d)) {
      const b = el("g", {class: "invbtn", "data-action": 36 + d}, g);
      el("rect", {x: x0 - 38, y: y0 + 62, width: 76, height: 18, rx: 4}, b);
      el("text", {x: x0, y: y0 + 75, "text-anchor": "middle"}, b, "investigate");
      el("title", {}, b, `place an investigator in ${name}`);
      actionable(b, `investigate in ${name}`, () => opts.onAction && opts.onAction(36 + d));
    }
    g.setAttribute("role", "group");
    g.setAttribute("aria-label", described.join("; "));
  });
  if (focused !== null) {
    const again = svg.querySelector(`[data-action="${focused}"]`);
    if (again) again.focus();
  }
}

// An SVG element the keyboard can use like a button: in the Tab order, Enter or Space acts.
function actionable(node, label, act) {
  node.setAttribute("tabindex", "0");
  node.setAttribute("role", "button");
  node.setAttribute("aria-label", label);
  node.addEventListener("click", act);
  node.addEventListener("keydown", e => {
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); act(); }
  });
}

async function api(method, url, body, token) {
  const headers = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token) headers["x-seat-token"] = token;
  const r = await fetch(url, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
  let doc = null;
  try { doc = await r.json(); } catch (e) { doc = {error: `HTTP ${r.status}`}; }
  if (!r.ok && r.status !== 202) throw new Error(doc && doc.error ? doc.error : `HTTP ${r.status}`);
  return doc;
}

function say(text, kind) {
  const m = document.getElementById("message");
  if (!m) return;
  m.textContent = text || "";
  m.className = kind || "";
}

function playersTable(parent, view, names, extra) {
  parent.innerHTML = "";
  const t = h("table", {id: "players"}, parent);
  const head = h("tr", {}, t);
  for (const c of ["player", view.mode === "duel" ? "rounds won" : "score", "inv. left", "", "in front"]) h("th", {}, head, c);
  for (let i = 0; i < view.players; i++) {
    const tr = h("tr", {class: i === view.to_move && !view.done ? "tomove" : "", "data-player": i}, t);
    const td = h("td", {}, tr);
    h("span", {class: "swatch", style: `background:${COLOURS[i]}`}, td);
    td.appendChild(document.createTextNode(youName(view, i, names)));
    const dt = view.decision && view.decision[i];
    if (dt) h("div", {class: "muted decision", "data-player": i}, td,
              `thinks ${secs(dt.mean)} a move (last ${secs(dt.last)}, longest ${secs(dt.max)})`);
    h("td", {class: "score"}, tr, String(view.scores[i]));
    h("td", {}, tr, String(view.investigators_left[i]));
    const flags = [];
    if (view.solved[i]) flags.push("solved"); else if (view.attempted[i]) flags.push("attempted");
    if (i === view.to_move && !view.done) flags.push("to move");
    h("td", {}, tr, flags.join(", "));
    const front = (view.front[i] || []).map(x => extra.elements[x]);
    const cell = h("td", {}, tr, front.join(", "));
    if (view.solved_case[i]) h("div", {class: "muted"}, cell, "solved: " + caseText(view.solved_case[i]));
    if ((view.failed[i] || []).length) h("div", {class: "muted"}, cell, "wrong: " + view.failed[i].map(caseText).join("; "));
  }
}

function secs(s) { return s < 0.1 ? `${Math.round(s * 1000)} ms` : `${s.toFixed(s < 10 ? 2 : 1)} s`; }

function tierTrack(parent, view) {
  parent.innerHTML = "";
  if (!view.tier_points || !view.tier_points.length) { parent.textContent = "duel: no tiers, rounds are won"; return; }
  const row = h("div", {class: "tiers"}, parent);
  view.tier_points.forEach((p, k) => {
    h("div", {class: "tier" + (k === view.tier ? " now" : k < view.tier ? " past" : ""), "data-tier": k}, row,
      `tier ${k}: ${p} pts`);
  });
}

function logList(ul, events, names) {
  ul.innerHTML = "";
  let round = null;
  for (const ev of events) {
    if (ev.round !== round) { round = ev.round; h("li", {class: "sep"}, ul, `Round ${round}`); }
    const li = h("li", {}, ul);
    h("span", {class: "swatch", style: `background:${COLOURS[ev.player]}`}, li);
    li.appendChild(document.createTextNode(`${names[ev.player]}: ${ev.action} → ${ev.answer}` +
      (ev.seconds !== undefined && ev.seconds !== null ? ` (${secs(ev.seconds)})` : "")));
  }
  ul.scrollTop = ul.scrollHeight;
}

function caseSelects(parent, elements, onSolve, label) {
  parent.innerHTML = "";
  const sel = [];
  [[0, 12], [12, 22], [22, 36]].forEach(([a, b], t) => {
    const s = h("select", {id: ["solve-suspect", "solve-evidence", "solve-location"][t]}, parent);
    h("option", {value: ""}, s, ["suspect…", "evidence…", "location…"][t]);
    for (let x = a; x < b; x++) h("option", {value: x - a}, s, elements[x]);
    sel.push(s);
  });
  const btn = h("button", {id: "solve-button", type: "button"}, parent, label || "Solve");
  btn.addEventListener("click", () => {
    if (sel.some(s => s.value === "")) { say("Choose a suspect, an evidence and a location first.", "error"); return; }
    const c = Number(sel[0].value) * 140 + Number(sel[1].value) * 14 + Number(sel[2].value);
    onSolve(50 + c);
  });
}
