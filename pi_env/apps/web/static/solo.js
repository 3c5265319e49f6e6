// A solo game: open queries on any element, investigators, solves, hints, the clock, the leaderboard.
"use strict";
const SID = location.pathname.split("/")[2];
let current = null, shownAt = 0, sending = false;

// whole seconds of the time rounded to a tenth, as the leaderboard stores it (2.96 s shows 0:03 on both)
function fmt(s) { s = Math.max(0, Math.floor(Math.round(s * 10) / 10)); const m = Math.floor(s / 60); return `${m}:${String(s % 60).padStart(2, "0")}`; }


function counters(view) {
  return `actions ${view.actions} · investigators left ${view.investigators_left} of ${view.investigators} · ` +
         `wrong solves ${view.wrong_solves} · hints ${view.hints}`;
}

function render(view) {
  if (current && current.version !== view.version) document.getElementById("hint").innerHTML = "";  // stale hint
  current = view;
  shownAt = performance.now();
  document.body.setAttribute("data-version", view.version);
  document.body.setAttribute("data-done", view.done ? "1" : "0");
  // the source may already name the difficulty ("random medium case"): never say it twice
  const named = view.difficulty && !view.source.includes(view.difficulty) ? ` · ${view.difficulty}` : "";
  const diff = view.difficulty ? `${named} (the reference solver needs ${view.greedy_actions} actions)` : "";
  document.getElementById("source").textContent = view.source + diff;
  const nothing = new Set(Object.keys(view.answers).filter(k => view.answers[k] === "nothing").map(Number));
  const legal = view.legal || {clues: [], districts: []};
  const v = {players: 1, tiles: view.tiles, spots: view.spots, traces: view.traces, investigators: view.investigators_list};
  const a = view.log.length ? view.log[view.log.length - 1].action_id : null;
  const last = a === null || a >= 50 ? null : a < 36 ? {element: a} : {district: a - 36};
  drawBoard(document.getElementById("board"), view.board, v,
            {clues: new Set(legal.clues), districts: new Set(legal.districts), nothing, onAction: send, last});
  document.getElementById("counters").textContent = counters(view);
  document.getElementById("last").textContent = view.last || "";
  document.getElementById("solve-panel").hidden = view.done;
  document.getElementById("ask-panel").hidden = view.done;  // the case is solved: nothing more to ask
  if (!view.done && !document.getElementById("solve-button")) caseSelects(document.getElementById("solve"), view.board.elements, send, "Name it");
  const ul = document.getElementById("log");
  ul.innerHTML = "";
  for (const e of view.log) h("li", {}, ul, `${e.index + 1}. ${e.action} → ${e.answer}`);
  document.getElementById("hint-button").disabled = view.done;
  if (view.done) finish(view);
}

async function finish(view) {
  document.getElementById("end-panel").hidden = false;
  const r = view.result || {};
  document.getElementById("end").textContent =
    `Solved: ${caseText(view.case)} in ${count(view.actions, "action")}, ` +
    `${count(view.investigators_used, "investigator tile")}, ${view.wrong_solves} wrong, ${fmt(view.seconds)}` + (r.ranked ? ` — rank ${r.rank} of ${r.of}` : (r.why ? ` (${r.why})` : "")) +
    (view.seed !== null && view.seed !== undefined ? `. It was the case of seed ${view.seed} (play it again with this seed).` : "");
  document.getElementById("download").href = `/api/solo/${SID}/record`;
  const doc = await api("GET", `/api/leaderboard?seed=${view.seed}&investigators=${view.investigators}`);
  const box = document.getElementById("board-table");
  box.innerHTML = "";
  const t = h("table", {id: "leaderboard"}, box);
  const head = h("tr", {}, t);
  const columns = ["#", "name", "actions", "investigators", "wrong", "time", "hints", "daily case"];
  for (const c of columns) h("th", {}, head, c);
  for (const row of doc.rows) {  // "daily case": the date it was played as the daily case, else "—" (from its seed)
    const tr = h("tr", {}, t);
    for (const c of [row.rank, row.name, row.actions, row.investigators, row.wrong, fmt(row.seconds), row.hints,
                     row.daily || "—"]) h("td", {}, tr, String(c));
  }
}

async function send(action) {
  if (!current || sending || current.done) return;
  sending = true;
  try { render(await api("POST", `/api/solo/${SID}/move`, {version: current.version, action})); say(""); }
  catch (e) { say(e.message, "error"); }
  finally { sending = false; }
}

document.getElementById("hint-button").addEventListener("click", async () => {
  try {
    const d = await api("POST", `/api/solo/${SID}/hint`);
    const box = document.getElementById("hint");
    box.innerHTML = "";
    h("div", {}, box, `${d.count} case${d.count === 1 ? " fits" : "s fit"} what you know.` +
      (d.certain.length && d.count > 1 ? ` Certain: ${d.certain.join(", ")}.` : ""));
    if (d.count <= 4) h("div", {class: "muted"}, box, d.cases.map(caseText).join("; "));
    if (d.count === 1) h("div", {}, box, `Name it: ${caseText(d.cases[0])}`);
    else if (d.best_action) h("div", {}, box, `Best next query: ${d.best_action} (${d.best_gain_bits.toFixed(2)} bits).` +
      (d.expected_remaining_actions !== null ? ` Expected actions left: ${d.expected_remaining_actions.toFixed(1)}.` : ""));
    current.hints = d.hints;
    document.getElementById("counters").textContent = counters(current);
  } catch (e) { say(e.message, "error"); }
});

setInterval(() => {
  if (!current) return;
  const extra = current.done ? 0 : (performance.now() - shownAt) / 1000;
  document.getElementById("timer").textContent = fmt(current.seconds + extra);
}, 250);

api("GET", `/api/solo/${SID}`).then(render).catch(e => say(e.message, "error"));
