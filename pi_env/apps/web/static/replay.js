// The replay viewer: step through a record's events, pick a point of view, see the solver's view.
"use strict";
const RID = location.pathname.split("/")[2];
let summary = null, positions = [], k = 0, pov = "all", solverTimer = null, request = 0;

function pct(p) { return p >= 0.0001 || p === 0 ? `${(100 * p).toFixed(2)}%` : `${(100 * p).toPrecision(2)}%`; }

async function show() {
  const [r, e] = positions[k];
  const n = ++request;
  const player = /^\d$/.test(pov) ? Number(pov) : null;
  let url = `/api/replays/${RID}/position?round=${r}&event=${e}`;
  if (player !== null) url += `&player=${player}`;
  if (pov === "all") url += "&all=1";
  let view;
  try { view = await api("GET", url); } catch (err) { say(err.message, "error"); return; }
  if (n !== request) return;
  document.body.setAttribute("data-position", k);
  const b = summary.board;
  const last = view.last ? {element: view.last.element, district: view.last.district} : null;
  drawBoard(document.getElementById("board"), b, view, {lit: new Set(view.display || []), last});
  const rnd = summary.rounds[r - 1];
  document.getElementById("where").textContent =
    `round ${r}/${summary.rounds.length}, ` + (e < 0 ? "start" : `event ${e + 1}/${rnd.events.length}`) +
    ` · rotation ${view.rotation}`;
  const ev = document.getElementById("event");
  ev.textContent = view.last ? `${summary.names[view.last.player]}: ${view.last.action} → ${view.last.answer}` : "The round begins.";
  if (view.to_move !== null && view.to_move !== undefined) ev.textContent += `  ·  next: ${summary.names[view.to_move]}`;
  const cases = document.getElementById("cases");
  cases.innerHTML = "";
  if (view.all_cases) {
    for (const p in view.all_cases) h("div", {class: "true-case"}, cases, `${summary.names[p]}'s case: ${caseText(view.all_cases[p])}`);
  } else if (view.held && view.held.case) {
    h("div", {}, cases, `${summary.names[player]} holds ${summary.names[view.held.player]}'s case: ${caseText(view.held.case)}`);
  }
  const disp = document.getElementById("display");
  disp.innerHTML = "";
  if (view.display) for (const x of view.display) { const c = h("div", {class: "card"}, disp, b.elements[x]); h("small", {}, c, typeOf(x)); }
  else disp.textContent = "not recorded";
  document.getElementById("deck").textContent = view.deck === null || view.deck === undefined ? "" : `(deck ${view.deck}, discard ${view.discard})`;
  tierTrack(document.getElementById("tiers"), Object.assign({}, view, {mode: summary.mode}));
  playersTable(document.getElementById("players-box"), Object.assign({mode: summary.mode, done: false}, view), summary.names, b);
  solver(r, e, player, n);
}

async function solver(r, e, player, n) {
  clearTimeout(solverTimer);
  const box = document.getElementById("solver");
  if (player === null) { box.className = "muted"; box.textContent = "choose a player's point of view (keys 0–4)"; return; }
  let doc;
  try { doc = await api("GET", `/api/replays/${RID}/solver?round=${r}&event=${e}&player=${player}`); }
  catch (err) { box.textContent = err.message; return; }
  if (n !== request) return;
  if (doc.status === "computing") {
    box.className = "muted"; box.textContent = "computing…";
    solverTimer = setTimeout(() => solver(r, e, player, n), 30);
    return;
  }
  box.className = "";
  box.innerHTML = "";
  box.setAttribute("data-status", doc.status);
  if (k + 1 < positions.length) {  // the next event's view, computed while this one is read
    const [nr, ne] = positions[k + 1];
    fetch(`/api/replays/${RID}/solver?round=${nr}&event=${ne}&player=${player}&prefetch=1`).catch(() => {});
  }
  if (doc.status !== "done") { box.textContent = doc.message; return; }
  const rep = doc.report;
  h("div", {id: "solver-count"}, box, `${rep.count} consistent case${rep.count === 1 ? "" : "s"} jointly with all public answers ` +
    `(${rep.own_count} from ${summary.names[player]}'s own information alone)`);
  if (rep.conflict) { h("div", {}, box, `No deal fits the events; these cannot all hold: ${rep.conflict.join(", ")}`); return; }
  const certain = ["suspect", "evidence", "location"].filter(t => rep.certain[t]).map(t => rep.certain[t]);
  h("div", {}, box, "Certain: " + (certain.length ? certain.join(", ") : "nothing yet"));
  const t = h("table", {}, box);
  for (const c of rep.cases.slice(0, 8)) {
    const tr = h("tr", {}, t);
    h("td", {}, tr, pct(c.probability));
    h("td", {}, tr, `${c.suspect} / ${c.evidence} / ${c.location}`);
  }
  if (rep.count > 8) h("div", {class: "muted"}, box, `… ${rep.count - 8} more`);
  const bars = h("div", {class: "bars"}, box);
  for (const type of ["suspect", "evidence", "location"]) {
    h("h3", {}, bars, type);
    const items = Object.entries(rep.marginals[type]).filter(([, p]) => p > 0).sort((a, c) => c[1] - a[1]);
    for (const [name, p] of items) {
      const row = h("div", {class: "bar"}, bars);
      h("span", {class: "name"}, row, name);
      h("span", {class: "fill", style: `width:${Math.max(1, Math.round(160 * p))}px`}, row);
      h("span", {class: "val"}, row, pct(p));
    }
  }
  if (!rep.solved && rep.hint && rep.hint.best_case) {
    const hi = rep.hint;
    h("h3", {}, box, "Hint");
    h("div", {}, box, `Solve now with ${hi.best_case.suspect} / ${hi.best_case.evidence} / ${hi.best_case.location}: ` +
      `P(correct) ${pct(hi.p_correct)}, expected points ${hi.expected_points.toFixed(3)} (tier ${hi.tier}: ${hi.points} points) — ` +
      (hi.solve_now ? "solve now" : "do not solve yet"));
    if (hi.best_action) h("div", {}, box, `Best query: ${hi.best_action} (${hi.best_gain_bits.toFixed(3)} of ${hi.entropy_bits.toFixed(3)} bits)`);
  } else if (rep.solved) h("div", {}, box, `${summary.names[player]} has solved its case this round.`);
}

function go(to) { k = Math.max(0, Math.min(positions.length - 1, to)); show(); }
function roundStart(dir) {
  const r = positions[k][0];
  let j = k;
  if (dir < 0) { j = positions.findIndex(p => p[0] === (positions[k][1] === -1 ? r - 1 : r)); }
  else { j = positions.findIndex(p => p[0] === r + 1); if (j < 0) j = positions.length - 1; }
  go(j < 0 ? 0 : j);
}

document.addEventListener("keydown", (ev) => {
  if (ev.target && ["INPUT", "SELECT", "TEXTAREA"].includes(ev.target.tagName) && ev.key.length === 1) return;
  const keys = {ArrowRight: () => go(k + 1), ArrowLeft: () => go(k - 1), Home: () => go(0),
                End: () => go(positions.length - 1), PageDown: () => roundStart(1), PageUp: () => roundStart(-1)};
  if (keys[ev.key]) { ev.preventDefault(); keys[ev.key](); return; }
  if (/^[0-4]$/.test(ev.key) && Number(ev.key) < summary.players) setPov(ev.key);
  else if (ev.key === "a" && summary.all_seeing) setPov("all");
  else if (ev.key === "s") setPov("spectator");
});
function setPov(v) { pov = v; document.getElementById("pov").value = v; show(); }
document.getElementById("pov").addEventListener("change", (e) => { pov = e.target.value; show(); });
document.getElementById("first").onclick = () => go(0);
document.getElementById("prev").onclick = () => go(k - 1);
document.getElementById("next").onclick = () => go(k + 1);
document.getElementById("last-btn").onclick = () => go(positions.length - 1);

api("GET", `/api/replays/${RID}`).then(s => {
  summary = s;
  document.getElementById("rules").textContent = s.rules + (s.engine ? " · engine-written" : " · typed in");
  s.rounds.forEach((rnd, i) => { for (let e = -1; e < rnd.events.length; e++) positions.push([i + 1, e]); });
  const sel = document.getElementById("pov");
  if (s.all_seeing) h("option", {value: "all"}, sel, "all-seeing (true cases)");
  h("option", {value: "spectator"}, sel, "spectator (no case)");
  for (let i = 0; i < s.players; i++) h("option", {value: String(i)}, sel, `${s.names[i]}'s view (solver)`);
  pov = s.all_seeing ? "all" : "spectator";
  sel.value = pov;
  show();
}).catch(e => say(e.message, "error"));
