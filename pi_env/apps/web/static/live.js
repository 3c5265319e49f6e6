// Following a live game: the server pushes this seat's view as server-sent events after every change
// (EventSource reconnects by itself after a dropped connection and resumes from the last event id);
// long polling where EventSource is missing or its stream keeps failing. Shared by the game and lobby
// pages.
"use strict";

function watchGame(game, token, onView) {
  let polling = false;
  async function poll() {
    if (polling) return;
    polling = true;
    let since = null;
    for (;;) {
      try {
        const url = `/api/games/${game}/view` + (since === null ? "" : `?since=${since}`);
        const view = await api("GET", url, undefined, token);
        onView(view);
        since = view.lobby ? null : view.version;  // a lobby changes without moves: ask again shortly
        if (view.done) return;
        if (view.lobby) await new Promise(r => setTimeout(r, 2000));
      } catch (e) {
        say(e.message, "error");
        await new Promise(r => setTimeout(r, 2000));
      }
    }
  }
  if (typeof EventSource === "undefined") { poll(); return; }
  const es = new EventSource(`/api/games/${game}/events` + (token ? `?seat=${encodeURIComponent(token)}` : ""));
  let failures = 0, last = null;
  es.addEventListener("people", (e) => {  // only who is at the table changed: the last view with it
    if (last) { last = Object.assign({}, last, {people: JSON.parse(e.data)}); onView(last); }
  });
  es.addEventListener("view", (e) => {
    failures = 0;
    const view = last = JSON.parse(e.data);
    document.body.setAttribute("data-transport", "events");
    onView(view);
    if (view.done) es.close();
  });
  es.onerror = () => {  // a refusal closes the stream; a dropped one is retried, five times in a row at most
    if (es.readyState === EventSource.CLOSED || ++failures >= 5) {
      es.close();
      document.body.setAttribute("data-transport", "polling");
      poll();
    }
  };
}

// The people at the table (the game page's "Players at the table" panel): who joined, who is here,
// and for the game's creator a button handing a left or away seat to an agent.
function peoplePanel(parent, view, game, token) {
  if (!parent || !view.people) return;
  parent.innerHTML = "";
  view.people.forEach((p, i) => {
    if (!p.person && view.seats[i] !== "human") {
      if (!view.lobby && view.people.some(q => q.person)) h("div", {class: "muted"}, parent, `${view.names[i]}: ${view.seats[i]}`);
      return;
    }
    const row = h("div", {"data-seat": i, class: "person"}, parent);
    const state = p.left ? "left" : !p.joined ? "not joined yet" : p.present ? "here" : "away";
    row.appendChild(document.createTextNode(`${youName(view, i)}: ${state} `));
    // offered only when the server accepts it: the person left, or is away (no connection for the
    // server's seat timeout); a closed tab is still "here" until then
    if (view.you_create && i !== view.you && !view.done && !view.lobby && !p.present) {
      const b = h("button", {"data-hand": i}, row, "let an agent play this seat");
      b.addEventListener("click", async () => {
        try { await api("POST", `/api/games/${game}/hand`, {seat: i, agent: "greedy"}, token); say(""); }
        catch (e) { say(e.message, "error"); }
      });
    }
  });
}
