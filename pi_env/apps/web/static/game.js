// A seat's (or a spectator's) page of a live game. Everything shown comes from the server's view
// of this seat; moves are sent with the version they were made at.
"use strict";
const parts = location.pathname.split("/");
const GAME = parts[2];
const TOKEN = parts[3] === "seat" ? parts[4] : null;
let current = null;
let sending = false;

function render(view) {
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
  if (view.done) turn.textContent = "The game is over.";
  else if (view.your_turn) turn.textContent = "Your turn: take a clue card, place an investigator or solve.";
  else turn.textContent = `${view.names[view.to_move]} is to move…`;
  const held = document.getElementById("held");
  held.textContent = view.held && view.held.case
    ? `You hold ${view.names[view.held.player]}'s case: ${caseText(view.held.case)} (you answer its questions; your own case is hidden).`
    : (view.you === null ? "Spectator: no case is shown." : "");
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
  tierTrack(document.getElementById("tiers"), view);
  playersTable(document.getElementById("players-box"), view, view.names, b);
  logList(document.getElementById("log"), view.log, view.names);
  if (view.agent_error) say(view.agent_error, "error");
  if (view.done) {
    document.getElementById("end-panel").hidden = false;
    const res = view.result;
    const order = [...Array(view.players).keys()].sort((a, c) => res.ranks[a] - res.ranks[c]);
    document.getElementById("end").textContent = "Final: " +
      order.map(i => `${res.ranks[i]}. ${view.names[i]} ${res.scores[i]}`).join(" · ") +
      (res.truncated ? " (a round was ended by the safeguard)" : "");
    const dl = document.getElementById("download");
    dl.href = `/api/games/${GAME}/record`;  // the game is over: every case is public; no token in the address
    dl.setAttribute("download", `pi-game-${GAME}.json`);
    document.getElementById("to-replay").onclick = async (e) => {
      e.preventDefault();
      const r = await api("POST", `/api/games/${GAME}/replay`);
      location.href = r.link;
    };
  }
}

async function send(action) {
  if (!current || sending) return;
  sending = true;
  try {
    const view = await api("POST", `/api/games/${GAME}/move`, {version: current.version, action}, TOKEN);
    say("");
    render(view);
  } catch (e) {
    say(e.message, "error");
  } finally {
    sending = false;
  }
}

if (TOKEN) api("POST", `/api/games/${GAME}/join`, {}, TOKEN).catch(e => say(e.message, "error"));
watchGame(GAME, TOKEN, (view) => {  // pushed views (live.js); a repeated one is drawn once
  if (!current || view.version !== current.version || view.done !== current.done) render(view);
  peoplePanel(document.getElementById("people"), view, GAME, TOKEN);
});
