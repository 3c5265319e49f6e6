"""Speed of the web app: a move's response, and the replay viewer's step.

Run: ``python benchmarks/web_speed.py [--moves 300] [--players 5] [--solver-every 1]``
(needs the ``web`` extra). Everything runs on loopback against the real server (uvicorn in a
thread of this process, a fresh data directory).

1. **Move response** (target ≤ 50 ms median, agents' thinking aside): games whose seats are all
   people, so no agent thinks; one client posts random legal moves (clue cards and investigators
   mostly, a solve now and then) and times each ``POST /api/games/{id}/move`` round trip, which
   includes storing the move in SQLite, the engine step and the mover's new view. Baseline, same
   process: the engine step + observation + view alone (``LiveGame.apply`` + ``LiveGame.view``).
2. **Replay step** (target ≤ 100 ms per event including the solver's view, 5 players): a 5-player
   engine-written game (``deducer`` agents, seed 1) is opened and stepped through event by event:
   ``GET .../position`` (the board; our part) and the solver's view of the player to move next
   (``GET .../solver`` until it is done: :func:`pi_env.solvers.solve_report.solve_report` in the
   worker process). The solver part is reported apart from ours, and each solver view is stopped
   after ``--solver-timeout`` seconds (counted as timed out): exact joint inference for 5 players
   at sparse positions can take far longer. Baseline, same
   process: ``solve_report`` called directly (without the worker process and HTTP).

3. **Pushing moves to watchers** (``--transport``, only this part): ``--clients`` (20) pages follow
   one game of two people while the benchmark plays ``--transport-moves`` (30) moves, each once
   every page has seen the last: first all by server-sent events (``GET .../events``, one open
   response per page), then all by long polling (``GET .../view?since=V``, one request per move),
   repeated ``--repeat`` (2) times, interleaved. Counted per page and move: requests and bytes
   received (status line, headers and body as sent on the wire, chunk framing aside) and the time
   from the move's answer to the last page seeing it.

Prints two tables (median, p90, max in ms) and the ratios against the baselines.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time

import numpy as np


def _pct(values, q):
    return float(np.percentile(np.asarray(values), q)) if values else float("nan")


def _row(name, values_s):
    ms = [v * 1000 for v in values_s]
    return (f"| {name} | {len(ms)} | {statistics.median(ms):.2f} | {_pct(ms, 90):.2f} | {max(ms):.2f} |"
            if ms else f"| {name} | 0 | – | – | – |")


def bench_moves(base: str, moves: int, seed: int) -> tuple[list[float], list[float]]:
    import httpx

    from pi_env.core.constants import SOLVE_BASE

    rng = np.random.default_rng(seed)
    times: list[float] = []
    with httpx.Client(base_url=base, timeout=60) as c:
        while len(times) < moves:
            doc = c.post("/api/games", json={"seats": ["human"] * 4, "seed": int(rng.integers(2**40))}).json()
            gid = doc["id"]
            tokens = [s["link"].rsplit("/", 1)[1] for s in doc["seats"]]
            view = c.get(f"/api/games/{gid}/view", headers={"x-seat-token": tokens[0]}).json()
            view = c.get(f"/api/games/{gid}/view", headers={"x-seat-token": tokens[view["to_move"]]}).json()
            while not view["done"] and len(times) < moves:
                token = tokens[view["to_move"]]
                if not view["your_turn"]:
                    view = c.get(f"/api/games/{gid}/view", headers={"x-seat-token": token}).json()
                    continue
                legal = view["legal"]["clues"] + [36 + d for d in view["legal"]["districts"]]
                action = int(rng.choice(legal)) if rng.random() < 0.93 else int(SOLVE_BASE + rng.integers(1680))
                t0 = time.perf_counter()
                r = c.post(f"/api/games/{gid}/move", json={"version": view["version"], "action": action},
                           headers={"x-seat-token": token})
                times.append(time.perf_counter() - t0)
                assert r.status_code == 200, r.text
                mover_view = r.json()
                if mover_view["done"]:
                    break
                view = c.get(f"/api/games/{gid}/view",
                             headers={"x-seat-token": tokens[mover_view["to_move"]]}).json()
    # baseline: the same work in this process, without HTTP and SQLite
    from pi_env.apps.web.games import LiveGame
    from pi_env.engine import GameConfig, legal_action_mask

    base_times: list[float] = []
    while len(base_times) < moves:
        g = LiveGame(id="bench", config=GameConfig(num_players=4), seed=int(rng.integers(2**40)),
                     seats=["human"] * 4, names=list("ABCD"), digests=[None] * 4)
        while not g.done and len(base_times) < moves:
            legal = np.flatnonzero(legal_action_mask(g.state)[0][:SOLVE_BASE])
            a = int(rng.choice(legal)) if rng.random() < 0.93 else int(SOLVE_BASE + rng.integers(1680))
            p = g.to_move
            t0 = time.perf_counter()
            g.apply(a)
            g.view(p)
            base_times.append(time.perf_counter() - t0)
    return times, base_times


def bench_replay(base: str, players: int, every: int, timeout: float, limit: int | None):
    import httpx

    from pi_env.agents.runner import play_game
    from pi_env.engine import GameConfig
    from pi_env.records.record_file import record_to_dict
    from pi_env.solvers.solve_report import solve_report

    _, rec = play_game(GameConfig(num_players=players), ["deducer"] * players, 1)
    record = rec.record()
    text = json.dumps(record_to_dict(record))
    ours, solver, steps, direct, inside, timed_out = [], [], [], [], [], 0
    positions = [(r, e) for r, rnd in enumerate(record.rounds) for e in range(-1, len(rnd.events))]
    with httpx.Client(base_url=base, timeout=600) as c:
        rid = c.post("/api/replays", json={"text": text}).json()["id"]
        c.get(f"/api/replays/{rid}/position?round=1&event=-1")  # warm: the worker loads the solver
        last = len(record.rounds[-1].events) - 1
        while c.get(f"/api/replays/{rid}/solver?round={len(record.rounds)}&event={last}&player=0").status_code != 200:
            time.sleep(0.05)
        for k, (r, e) in enumerate(positions):
            rnd = record.rounds[r]
            nxt = rnd.events[e + 1].player if e + 1 < len(rnd.events) else rnd.first_player
            t0 = time.perf_counter()
            pos = c.get(f"/api/replays/{rid}/position?round={r + 1}&event={e}&player={nxt}")
            t1 = time.perf_counter()
            assert pos.status_code == 200, pos.text
            ours.append(t1 - t0)
            if k % every or (limit is not None and len(solver) + timed_out >= limit):
                continue
            while True:  # as the page does: ask again while it answers "computing"
                s = c.get(f"/api/replays/{rid}/solver?round={r + 1}&event={e}&player={nxt}")
                if s.status_code == 200 or time.perf_counter() - t1 > timeout:
                    break
            t2 = time.perf_counter()
            if s.status_code != 200 or s.json()["status"] != "done":
                timed_out += 1
                continue
            solver.append(t2 - t1)
            inside.append(s.json()["report"]["seconds"])
            steps.append(t2 - t0)
            d0 = time.perf_counter()
            solve_report(record, nxt, r, e, top=20)
            direct.append(time.perf_counter() - d0)
    return ours, solver, steps, direct, inside, timed_out, len(positions)


def _header_bytes(r) -> int:
    """The bytes of a response's status line and headers as sent (HTTP/1.1)."""
    return len(f"HTTP/1.1 {r.status_code} {r.reason_phrase}\r\n") + sum(
        len(k) + len(v) + 4 for k, v in r.headers.raw) + 2


def bench_transport(base: str, clients: int, moves: int, kind: str, seed: int) -> dict[str, float]:
    """One game of two people followed by ``clients`` spectator pages over ``kind`` (``"events"``
    or ``"polling"``) while ``moves`` moves are played, each once every page has seen the last.

    Returns:
        ``{"requests", "bytes", "latency_ms"}``: requests and bytes per page and move, median
        milliseconds from a move's answer to the last page seeing it.
    """
    import threading

    import httpx

    seen = [-1] * clients
    counts = [[0, 0] for _ in range(clients)]  # requests, bytes
    stop = threading.Event()
    cond = threading.Condition()
    with httpx.Client(base_url=base, timeout=60) as c:
        doc = c.post("/api/games", json={"seats": ["human", "human"], "seed": seed}).json()
        gid = doc["id"]
        tokens = [s["link"].rsplit("/", 1)[1] for s in doc["seats"]]

    def note(i: int, version: int) -> None:
        with cond:
            seen[i] = max(seen[i], version)
            cond.notify_all()

    def follow_events(i: int) -> None:
        with httpx.Client(base_url=base, timeout=httpx.Timeout(60, read=None)) as h:
            with h.stream("GET", f"/api/games/{gid}/events") as r:
                counts[i][0] += 1
                counts[i][1] += _header_bytes(r)
                for line in r.iter_lines():
                    counts[i][1] += len(line.encode("utf-8")) + 1
                    if line.startswith("data: {"):
                        note(i, json.loads(line[6:])["version"])
                    if stop.is_set():
                        return

    def follow_polling(i: int) -> None:
        since = None
        with httpx.Client(base_url=base, timeout=60) as h:
            while not stop.is_set():
                r = h.get(f"/api/games/{gid}/view", params={} if since is None else {"since": since})
                counts[i][0] += 1
                counts[i][1] += _header_bytes(r) + len(r.content)
                since = r.json()["version"]
                note(i, since)

    threads = [threading.Thread(target=follow_events if kind == "events" else follow_polling, args=(i,), daemon=True)
               for i in range(clients)]
    for t in threads:
        t.start()
    latencies = []
    with httpx.Client(base_url=base, timeout=60) as c:
        with cond:
            cond.wait_for(lambda: min(seen) >= 0, timeout=60)
        before = [list(x) for x in counts]
        for v in range(moves):
            view = c.get(f"/api/games/{gid}/view", headers={"x-seat-token": tokens[0]}).json()
            token = tokens[view["to_move"]]
            mine = c.get(f"/api/games/{gid}/view", headers={"x-seat-token": token}).json()
            legal = mine["legal"]["clues"] or [36 + d for d in mine["legal"]["districts"]]
            r = c.post(f"/api/games/{gid}/move", json={"version": v, "action": legal[0]},
                       headers={"x-seat-token": token})
            assert r.status_code == 200, r.text
            t0 = time.perf_counter()
            with cond:
                assert cond.wait_for(lambda: min(seen) >= v + 1, timeout=60), "a page never saw the move"
            latencies.append(time.perf_counter() - t0)
        after = [list(x) for x in counts]
    stop.set()
    c2 = httpx.Client(base_url=base, timeout=60)  # one more move wakes the followers so they stop
    view = c2.get(f"/api/games/{gid}/view", headers={"x-seat-token": tokens[0]}).json()
    token = tokens[view["to_move"]]
    mine = c2.get(f"/api/games/{gid}/view", headers={"x-seat-token": token}).json()
    legal = mine["legal"]["clues"] or [36 + d for d in mine["legal"]["districts"]]
    c2.post(f"/api/games/{gid}/move", json={"version": moves, "action": legal[0]}, headers={"x-seat-token": token})
    c2.close()
    for t in threads:
        t.join(10)
    requests = sum(a[0] - b[0] for a, b in zip(after, before)) / (clients * moves)
    received = sum(a[1] - b[1] for a, b in zip(after, before)) / (clients * moves)
    return {"requests": requests, "bytes": received, "latency_ms": 1000 * statistics.median(latencies)}


def main_transport(args) -> int:
    from pi_env.apps.web import background_server

    rows = []
    with tempfile.TemporaryDirectory() as data:
        with background_server(data, agent_delay=0.0, games_per_minute=1000) as base:
            for r in range(args.repeat):
                for kind in ("events", "polling"):
                    rows.append((kind, bench_transport(base, args.clients, args.transport_moves, kind, args.seed + r)))
    print(f"Following one game: {args.clients} pages, {args.transport_moves} moves, each kind {args.repeat} times")
    print("| transport | requests per page and move | bytes per page and move | median ms to the last page |")
    print("|---|---|---|---|")
    for kind, m in rows:
        print(f"| {kind} | {m['requests']:.2f} | {m['bytes']:.0f} | {m['latency_ms']:.1f} |")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=300, help="moves to time (default 300)")
    parser.add_argument("--players", type=int, default=5, help="players of the replayed game (default 5)")
    parser.add_argument("--solver-every", type=int, default=1, help="solver view at every k-th position")
    parser.add_argument("--solver-limit", type=int, default=None, help="at most this many solver views")
    parser.add_argument("--solver-timeout", type=float, default=20.0,
                        help="seconds before a solver view counts as timed out (default 20)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--transport", action="store_true",
                        help="only part 3: pushing moves to --clients pages, events against long polling")
    parser.add_argument("--clients", type=int, default=20, help="pages following the game (default 20)")
    parser.add_argument("--transport-moves", type=int, default=30, help="moves played (default 30)")
    parser.add_argument("--repeat", type=int, default=2, help="times each transport is measured (default 2)")
    args = parser.parse_args(argv)
    if args.transport:
        return main_transport(args)
    from pi_env.apps.web import background_server

    with tempfile.TemporaryDirectory() as data:
        with background_server(data, agent_delay=0.0, solver_timeout=args.solver_timeout) as base:
            moves, base_moves = bench_moves(base, args.moves, args.seed)
            ours, solver, steps, direct, inside, timed_out, n_pos = bench_replay(
                base, args.players, args.solver_every, args.solver_timeout, args.solver_limit)
    if moves:
        print("Move response (4 people, no agent), ms")
        print("| what | n | median | p90 | max |\n|---|---|---|---|---|")
        print(_row("POST move over HTTP (SQLite + engine + view)", moves))
        print(_row("baseline: engine step + view in-process", base_moves))
        print(f"ratio (median HTTP / median in-process): "
              f"{statistics.median(moves) / statistics.median(base_moves):.1f}; target: median <= 50 ms -> "
              f"{'met' if statistics.median(moves) <= 0.05 else 'NOT met'}")
        print()
    print(f"Replay step, {args.players} players, {n_pos} positions, ms")
    print("| what | n | median | p90 | max |\n|---|---|---|---|---|")
    print(_row("board position over HTTP (our part)", ours))
    print(_row("solver view over HTTP, worker process", solver))
    print(_row("  of which solve_report inside the worker", inside))
    print(_row("step = position + solver view", steps))
    print(_row("baseline: solve_report in-process", direct))
    print(f"solver views stopped after {args.solver_timeout:g} s: {timed_out}")
    if solver and direct:
        print(f"ratio (median solver view via worker / in-process): "
              f"{statistics.median(solver) / statistics.median(direct):.2f}")
    if steps:
        print(f"target: step <= 100 ms per event -> median {1000 * statistics.median(steps):.1f} ms, "
              f"p90 {1000 * _pct(steps, 90):.1f} ms; our part alone median {1000 * statistics.median(ours):.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
