// A seat's (or a spectator's) page of a live game. Everything shown comes from the server's view
// of this seat; moves are sent with the version they were made at.
"use strict";
const parts = location.pathname.split("/");
const GAME = parts[2];
const TOKEN = parts[3] === "seat" ? parts[4] : null;
let current = null;
let sending = false;

// Views reach the page three ways that can overtake one another on a busy machine: the server's
// pushed views (or polls), the answer to this page's move, and the last pushed view again with new
// people. Only a view later than the one shown is drawn: a higher version, or at the same version the
// game's start or end. An older one drawn would take the page back, and after the game's end (the
// event stream closes there) for good. Each decision is traced on the console (debug level).
function later(view) {
  if (!current) return true;
  if (view.version !== current.version) return view.version > current.version;
  return (current.lobby && !view.lobby) || (view.done && !current.done);
}
function show(view, source) {
  const drawn = later(view);
  console.debug(`view ${view.version}${view.done ? " (the end)" : ""} from ${source}: ` + (drawn ? "drawn"
    : `not drawn, the page shows ${current.version}${current.done ? " (the end)" : ""}`));
  if (drawn) render(view);
  return drawn;
}

function render(view) {
  view.names = view.names.map((_, i) => youName(view, i));  // one "(you)", on this page's seat only
  if (current && current.version !== view.version) document.getElementById("hint").innerHTML = "";  // out of date
  current = view;
  const b = view.board;
  document.getElementById("rules").textContent = view.rules;
  document.getElementById("where").textContent =
    `round ${view.round}/${view.rounds}, rotation ${view.rotation} · move ${view.version}`;
  document.body.setAttribute("data-version", view.version);
  document.body.setAttribute("data-done", view.done ? "1" : "0");
  document.body.setAttribute("data-your-turn", view.your_turn ? "1" : "0");
  const legal = view.legal || {clues: [], districts: []};
  const clues = new Set(view.your_turn ? legal.clues : []);
  const districts = new Set(view.your_turn ? legal.districts : []);
  const lastEv = view.log.length && !view.done ? view.log[view.log.length - 1] : null;
  const last = lastEv && lastEv.round === view.round ? {element: lastEv.element, district: lastEv.district} : null;
  drawBoard(document.getElementById("board"), b, view,
            {clues, districts, lit: new Set(view.display || []), onAction: send, last});
  const turn = document.getElementById("turn");
  if (view.done) turn.textContent = `The game is over: ${winnerText(view)}.`;
  else if (view.your_turn) turn.textContent = "Your turn: take a clue card, place an investigator or solve.";
  else turn.textContent = `${view.names[view.to_move]} is to move…`;
  const held = document.getElementById("held");
  held.textContent = view.held && view.held.case
    ? (view.done ? `You held ${view.names[view.held.player]}'s case: ${caseText(view.held.case)} (the game is over: every case is shown on the end screen).`
       : `You hold ${view.names[view.held.player]}'s case: ${caseText(view.held.case)} (you answer its questions; your own case is hidden).`)
    : (view.you === null ? (view.done ? "Spectator: every case is shown on the end screen." : "Spectator: no case is shown.") : "");
  const disp = document.getElementById("display");
  disp.innerHTML = "";
  for (const x of view.display) {
    const legalCard = clues.has(x);
    const c = h(legalCard ? "button" : "div", {class: "card", "data-element": x}, disp);
    if (legalCard) { c.setAttribute("data-action", x); c.addEventListener("click", () => send(x)); }
    c.appendChild(document.createTextNode(b.elements[x]));
    h("small", {}, c, typeOf(x));
  }
  document.getElementById("deck").textContent = `(deck ${view.deck}, discard ${view.discard})`;
  document.getElementById("solve-rule").textContent = view.mode === "duel"  // docs/rules.md §7, §4.4
    ? "Your first solve attempt of the round decides it: a wrong one gives the round to the other player; " +
      "a correct one wins it (by the round's first player: the other gets one more turn, to draw)."
    : "A correct solve scores the current tier's points; a wrong one costs 2" +
      (view.edition === "second" ? " (never below −5)." : " (penalty points).");
  const solvePanel = document.getElementById("solve-panel");
  solvePanel.hidden = !view.your_turn;
  if (view.your_turn && !document.getElementById("solve-button")) caseSelects(document.getElementById("solve"), b.elements, send);
  if (!view.your_turn) document.getElementById("solve").innerHTML = "";
  document.getElementById("hint-box").hidden = !(view.hints && view.your_turn);
  tierTrack(document.getElementById("tiers"), view);
  playersTable(document.getElementById("players-box"), view, view.names, b);
  logList(document.getElementById("log"), view.log, view.names);
  if (view.agent_error) say(view.agent_error, "error");
  if (view.done) endScreen(view);
  roundSummary(view);
}

function winnerText(view) {
  const w = view.result.winners.map(i => view.names[i]);
  const what = view.mode === "duel" ? "rounds won" : "points";
  const score = view.result.scores[view.result.winners[0]];
  return w.length === 1 ? `${w[0]} wins with ${score} ${what}` : `${w.join(" and ")} share the win with ${score} ${what}`;
}

// docs/rules.md §5 (and §7 for a duel): how equal scores were separated
function tiebreakText(view) {
  if (view.mode === "duel") return "A duel is won by the rounds won; equal rounds won is a draw.";
  return "Equal scores are separated by more unused investigator tiles" +
    (view.edition === "first" ? ", then by fewer penalty points" : "") + "; players still tied share the place.";
}

function endScreen(view) {
  const panel = document.getElementById("end-panel");
  const first = panel.hidden;
  panel.hidden = false;
  const res = view.result;
  document.getElementById("end-title").textContent = `The game is over: ${winnerText(view)}`;
  document.getElementById("end").textContent = res.truncated ? "A round was ended by the safeguard." : "";
  const order = [...Array(view.players).keys()].sort((a, c) => res.ranks[a] - res.ranks[c] || a - c);
  const t = document.getElementById("standings");
  t.innerHTML = "";
  const head = h("tr", {}, t);
  const cols = ["place", "player", view.mode === "duel" ? "rounds won" : "score", "unused investigators"];
  if (view.edition === "first") cols.push("penalty points");
  cols.push("why this place");
  for (const c of cols) h("th", {}, head, c);
  for (const i of order) {
    const tr = h("tr", {"data-player": i, class: res.winners.includes(i) ? "winner" : ""}, t);
    h("td", {}, tr, String(res.ranks[i]));
    const td = h("td", {}, tr);
    h("span", {class: "swatch", style: `background:${COLOURS[i]}`}, td);
    td.appendChild(document.createTextNode(view.names[i]));
    h("td", {}, tr, String(res.scores[i]));
    h("td", {}, tr, String(view.investigators_left[i]));
    if (view.edition === "first") h("td", {}, tr, String(res.penalty[i]));
    const same = order.filter(j => j !== i && res.scores[j] === res.scores[i]);
    let why = "score";
    if (same.length && view.mode !== "duel") {
      const tied = same.filter(j => res.ranks[j] === res.ranks[i]);
      why = tied.length ? `tied with ${tied.map(j => view.names[j]).join(", ")}: shared place`
        : `same score as ${same.map(j => view.names[j]).join(", ")}: separated by the tiebreak`;
    }
    h("td", {class: "why"}, tr, why);
  }
  document.getElementById("tiebreak").textContent = tiebreakText(view);
  const box = document.getElementById("all-cases");
  box.innerHTML = "";
  const ct = h("table", {id: "cases"}, box);
  const ch = h("tr", {}, ct);
  h("th", {}, ch, "round");
  for (let i = 0; i < view.players; i++) h("th", {}, ch, youName(view, i));
  res.cases.forEach((row, r) => {
    const tr = h("tr", {}, ct);
    h("td", {}, tr, String(r + 1));
    row.forEach((c, i) => h("td", {"data-player": i, "data-round": r + 1}, tr, caseText(c)));
  });
  const dl = document.getElementById("download");
  dl.href = `/api/games/${GAME}/record`;  // the game is over: every case is public; no token in the address
  dl.setAttribute("download", `pi-game-${GAME}.json`);
  document.getElementById("to-replay").onclick = async (e) => {
    e.preventDefault();
    const r = await api("POST", `/api/games/${GAME}/replay`);
    location.href = r.link;
  };
  if (first) panel.scrollIntoView();
}

// The summary of each finished round, shown once (until the player dismisses it) before play goes
// on, as a modal dialog: the page behind it is inert, Tab and Shift+Tab cycle inside it, its button or
// Escape dismisses it and the focus goes back to the board. The game's end shows the end screen
// instead of the last round's summary.
const seenKey = `pi-summaries-${GAME}-${TOKEN ? TOKEN.slice(0, 6) : "spectator"}`;
const summaryBox = document.getElementById("round-summary");
let summaryShown = 0;  // the number of round summaries when the one on screen was opened
function seenSummaries() { return Number(sessionStorage.getItem(seenKey) || 0); }
function setSeen(n) { sessionStorage.setItem(seenKey, String(Math.max(n, seenSummaries()))); }
function roundSummary(view) {
  const all = view.round_summaries || [];
  if (view.done) { setSeen(all.length); if (summaryBox.open) summaryBox.close(); return; }
  if (all.length <= seenSummaries() || summaryBox.open) return;
  const s = all[all.length - 1];
  document.getElementById("summary-title").textContent = `Round ${s.round} is over`;
  const body = document.getElementById("summary-body");
  body.innerHTML = "";
  const t = h("table", {id: "summary-table"}, body);
  const head = h("tr", {}, t);
  for (const c of ["player", "this round", "score", "solves (move, rotation)"]) h("th", {}, head, c);
  for (let i = 0; i < view.players; i++) {
    const tr = h("tr", {"data-player": i}, t);
    const td = h("td", {}, tr);
    h("span", {class: "swatch", style: `background:${COLOURS[i]}`}, td);
    td.appendChild(document.createTextNode(view.names[i]));
    const p = s.points[i];
    h("td", {class: "points"}, tr, (p > 0 ? "+" : "") + p);
    h("td", {}, tr, String(s.scores[i]));
    const mine = s.solves.filter(x => x.player === i);
    h("td", {class: "solves"}, tr, mine.length ? mine.map(x =>
      `${x.correct ? "solved" : "wrong"}: ${caseText(x.case)} (move ${x.move}, rotation ${x.rotation})`).join("; ") : "no solve");
  }
  h("h3", {}, body, "Cases revealed");
  const ul = h("ul", {id: "summary-cases"}, body);
  for (const c of s.revealed) {
    h("li", {"data-player": c.player}, ul, `${view.names[c.player]}: ${caseText(c.case)} (` +
      (c.why === "solved" ? "solved" : "the case you held") + ")");
  }
  h("p", {class: "muted"}, body, "The other cases stay secret until the end of the game.");
  summaryShown = all.length;
  summaryBox.showModal();
  document.getElementById("summary-close").focus();
}
document.getElementById("summary-close").addEventListener("click", () => summaryBox.close());
summaryBox.addEventListener("close", () => {  // the button, Escape (the dialog's cancel) or the game's end
  setSeen(summaryShown);
  if (current && current.done) return;
  const board = document.getElementById("board");
  (document.querySelector("#board [tabindex], #display button") || board).focus();
});
summaryBox.addEventListener("keydown", e => {  // Tab and Shift+Tab go round the dialog's controls
  if (e.key !== "Tab") return;
  const stops = [...summaryBox.querySelectorAll("button, [tabindex='0']")];
  const i = stops.indexOf(document.activeElement);
  e.preventDefault();
  stops[e.shiftKey ? (i <= 0 ? stops.length - 1 : i - 1) : (i + 1) % stops.length].focus();
});

document.getElementById("hint-button").addEventListener("click", async () => {
  try {
    const d = await api("POST", `/api/games/${GAME}/hint`, undefined, TOKEN);
    const box = document.getElementById("hint");
    box.innerHTML = "";
    const certain = Object.entries(d.certain || {}).filter(([, v]) => v).map(([, v]) => v);
    h("div", {}, box, `${d.count} case${d.count === 1 ? " fits" : "s fit"} what you know.` +
      (certain.length && d.count > 1 ? ` Certain: ${certain.join(", ")}.` : ""));
    if (d.cases.length) h("div", {class: "muted"}, box, d.cases.map(c =>
      `${caseText(c)} ${(100 * c.probability).toFixed(1)}%`).join("; "));
    if (d.solve_now && d.best_case) h("div", {}, box, `Solve now: ${caseText(d.best_case)} (expected ${d.expected_points.toFixed(2)} points).`);
    else if (d.best_action) h("div", {}, box, `Best next query: ${d.best_action} (${d.best_gain_bits.toFixed(2)} bits).`);
  } catch (e) { say(e.message, "error"); }
});

async function send(action) {
  if (!current || sending) return;
  sending = true;
  try {
    const view = await api("POST", `/api/games/${GAME}/move`, {version: current.version, action}, TOKEN);
    say("");
    show(view, "the move's answer");  // the pushed views may already be ahead (agents moving at once)
  } catch (e) {
    say(e.message, "error");
  } finally {
    sending = false;
  }
}

if (TOKEN) api("POST", `/api/games/${GAME}/join`, {}, TOKEN).catch(e => say(e.message, "error"));
watchGame(GAME, TOKEN, (view) => {  // pushed or polled views (live.js); a repeated one is drawn once
  show(view, "the server");
  // the people at the table are the latest ones, whatever the version of the view that brought them
  peoplePanel(document.getElementById("people"), Object.assign({}, current, {people: view.people}), GAME, TOKEN);
});
