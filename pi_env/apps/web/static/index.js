// The start page: create a game (seats: you or a built-in agent), start a solo case, open a record.
"use strict";
// the seat choices come from the server (GET /api/seat-kinds: a person, the built-in agents, the zoo's
// learned models with the player count each plays); until they arrive, a person or greedy
let SEAT_CHOICES = [{name: "human", label: "a person (private link)"}, {name: "greedy", label: "greedy"}];

function seatRows() {
  const box = document.getElementById("seats");
  const n = document.getElementById("duel").checked ? 2 : Number(document.getElementById("players").value);
  const old = [...box.querySelectorAll("select")].map(s => s.value);
  box.innerHTML = "";
  for (let i = 0; i < n; i++) {
    const row = h("div", {}, box);
    h("span", {class: "swatch", style: `background:${COLOURS[i]}`}, row);
    row.appendChild(document.createTextNode(`${seatLabel(i)} `));
    const s = h("select", {id: `seat-${i}`}, row);
    for (const a of SEAT_CHOICES) h("option", {value: a.name}, s, a.label);
    s.value = old[i] || (i === 0 ? "human" : "greedy");
  }
}
document.getElementById("players").addEventListener("change", seatRows);
document.getElementById("duel").addEventListener("change", seatRows);
seatRows();
api("GET", "/api/seat-kinds").then(doc => { SEAT_CHOICES = doc.seats; seatRows(); })
  .catch(() => say("Could not load the list of agents; reload the page.", "error"));

document.getElementById("create").addEventListener("click", async () => {
  const n = document.querySelectorAll("#seats select").length;
  const seats = [...Array(n).keys()].map(i => document.getElementById(`seat-${i}`).value);
  const variants = [];
  if (document.getElementById("fast").checked) variants.push("fast");
  if (document.getElementById("nick").checked) variants.push("nick-of-time");
  const body = {seats, edition: document.getElementById("edition").value,
                mode: document.getElementById("duel").checked ? "duel" : "standard", variants,
                hints: document.getElementById("hints").checked,
                lobby: seats.filter(s => s === "human").length > 1};  // several people: wait for them
  const inv = document.getElementById("investigators").value.trim();
  if (inv) {
    const counts = inv.split(",").map(t => Number(t.trim()));
    if (counts.some(k => !Number.isInteger(k))) { say("Investigator tiles: whole numbers separated by commas, e.g. 5,5,3,3.", "error"); return; }
    body.investigators = counts;
  }
  // the first game after installing compiles the engine's kernels: the request can take minutes
  const button = document.getElementById("create");
  button.disabled = true;
  say("Creating the game… the first game after installing compiles the engine, which can take a few minutes.");
  try {
    const g = await api("POST", "/api/games", body);
    say("");
    const humans = g.seats.filter(s => s.link);
    if (humans.length === 1) { location.href = humans[0].link; return; }
    // the lobby shows the creator the others' links again (kept in this tab only, never sent)
    sessionStorage.setItem(`pi-links-${g.id}`, JSON.stringify(humans.map(s => ({name: s.name, link: s.link}))));
    const box = document.getElementById("links");
    box.innerHTML = "";
    h("div", {}, box, "Private links — give each person only their own:");
    for (const s of humans) {
      const d = h("div", {}, box);
      const a = h("a", {href: s.link, class: "seat-link"}, d, `${s.name}: ${location.origin}${s.link}`);
      a.target = "_blank";
    }
    const d = h("div", {}, box);
    h("a", {href: g.spectator}, d, "Watch as a spectator (no case shown)");
    loadGames();
  } catch (e) { say(e.message, "error"); }
  finally { button.disabled = false; }
});

document.getElementById("solo-date").value = new Date().toISOString().slice(0, 10);
document.getElementById("solo-start").addEventListener("click", async () => {
  const daily = document.getElementById("solo-daily").checked;
  const seedText = document.getElementById("solo-seed").value;
  const body = {daily: daily ? document.getElementById("solo-date").value : null,
                seed: !daily && seedText !== "" ? Number(seedText) : null,
                difficulty: document.getElementById("solo-difficulty").value || null,
                investigators: Number(document.getElementById("solo-inv").value),
                name: document.getElementById("solo-name").value};
  say("Finding the case…");
  try { const s = await api("POST", "/api/solo", body); location.href = s.link; }
  catch (e) { say(e.message, "error"); }
});

document.getElementById("replay-open").addEventListener("click", async () => {
  const file = document.getElementById("replay-file").files[0];
  const text = document.getElementById("replay-text").value.trim();
  const path = document.getElementById("replay-path").value.trim();
  let body;
  if (file) body = {text: await file.text()};
  else if (text) body = {text};
  else if (path) body = {path};
  else { say("Choose a record file, paste one, or give a path.", "error"); return; }
  try { const r = await api("POST", "/api/replays", body); location.href = r.link; }
  catch (e) { say(e.message, "error"); }
});

async function loadGames() {
  const doc = await api("GET", "/api/games");
  const box = document.getElementById("games");
  if (!doc.games.length) return;
  box.innerHTML = "";
  const t = h("table", {}, box);
  for (const g of doc.games) {
    const tr = h("tr", {}, t);
    const td = h("td", {}, tr);
    h("a", {href: `/game/${g.id}`}, td, g.id);
    h("td", {}, tr, g.rules);
    h("td", {}, tr, g.seats.join(", "));
    h("td", {}, tr, g.done ? `over after ${count(g.moves, "move")}` : count(g.moves, "move"));
  }
}
loadGames();
