// The lobby of a game with several people: each person opens their private link and joins; the game
// starts once everyone has joined, or when its creator starts it (agents take the empty seats).
"use strict";
const parts = location.pathname.split("/");
const GAME = parts[2];
const TOKEN = parts[4];

function show(view) {
  if (!view.lobby) { location.reload(); return; }  // started: the server now serves the game page
  document.getElementById("rules").textContent = view.rules;
  document.body.setAttribute("data-lobby", "1");
  view.names = view.names.map((_, i) => youName(view, i));  // one "(you)", on this page's seat only
  const waiting = view.people.map((p, i) => p.person && !p.joined ? view.names[i] : null).filter(Boolean);
  document.getElementById("status").textContent = waiting.length
    ? `Waiting for ${waiting.join(", ")} to open their private link.` : "Everyone is here: starting…";
  const body = document.querySelector("#people tbody");
  body.innerHTML = "";
  view.people.forEach((p, i) => {
    const tr = h("tr", {"data-seat": i}, body);
    h("td", {}, tr, youName(view, i));
    h("td", {}, tr, !p.person ? `agent (${view.seats[i]})` : p.left ? "left" : p.joined ? (p.present ? "here" : "away") : "not joined yet");
  });
  document.getElementById("creator-panel").hidden = !view.you_create;
  const links = JSON.parse(sessionStorage.getItem(`pi-links-${GAME}`) || "null");
  const share = document.getElementById("share");
  if (view.you_create && links && !share.childElementCount) {
    h("div", {}, share, "Give each person only their own private link:");
    for (const s of links) if (!location.pathname.endsWith(s.link)) h("div", {class: "seat-link"}, share, `${s.name}: ${location.origin}${s.link}`);
  }
}

const agents = document.getElementById("agent");
for (const a of ["greedy", "deducer", "heuristic", "search", "random"]) h("option", {value: a}, agents, a);
document.getElementById("start").addEventListener("click", async () => {
  try { await api("POST", `/api/games/${GAME}/start`, {agent: agents.value}, TOKEN); location.reload(); }
  catch (e) { say(e.message, "error"); }
});
document.getElementById("leave").addEventListener("click", async () => {
  try { await api("POST", `/api/games/${GAME}/leave`, {}, TOKEN); location.href = "/"; }
  catch (e) { say(e.message, "error"); }
});
api("POST", `/api/games/${GAME}/join`, {}, TOKEN).then(show, e => say(e.message, "error"));
watchGame(GAME, TOKEN, show);
