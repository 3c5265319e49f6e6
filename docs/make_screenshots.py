"""Screenshots of the web app's pages for the README (``docs/figures/web_*.png``).

Run: ``python docs/make_screenshots.py [--out docs/figures]`` (needs the ``web`` extra, selenium,
and Debian's ``chromium`` and ``chromium-driver``). It starts the server on a free loopback port
with a fresh data directory, plays a few moves of a game (one person, three agents), a few
queries of a solo case with a hint, opens a replay at a player's point of view, and saves one
picture of each page.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path


def _wait(predicate, timeout=120.0):
    from selenium.common.exceptions import StaleElementReferenceException

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            if predicate():
                return
        except StaleElementReferenceException:  # the page was being replaced: ask again
            pass
        time.sleep(0.05)
    raise TimeoutError("the page did not get there in time")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(Path(__file__).with_name("figures")))
    args = parser.parse_args(argv)
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    from pi_env.agents.runner import play_game
    from pi_env.apps.web import background_server
    from pi_env.engine import GameConfig
    from pi_env.records.record_file import record_to_dict

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    options = Options()
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1200,1000", "--hide-scrollbars"):
        options.add_argument(flag)
    profile = tempfile.mkdtemp()
    options.add_argument(f"--user-data-dir={profile}")
    options.binary_location = shutil.which("chromium")
    d = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
    body = lambda: d.find_element("tag name", "body")  # noqa: E731
    try:
        with tempfile.TemporaryDirectory() as data, background_server(data, agent_delay=0.05) as base:
            d.get(base + "/")
            _wait(lambda: d.find_elements("id", "seat-3"))
            for i, agent in enumerate(["human", "greedy", "deducer", "heuristic"]):
                Select(d.find_element("id", f"seat-{i}")).select_by_value(agent)
            d.save_screenshot(str(out / "web_index.png"))
            d.find_element("id", "create").click()
            _wait(lambda: "/seat/" in d.current_url)
            for _ in range(4):  # a few moves, so that the board carries markers
                _wait(lambda: body().get_attribute("data-your-turn") == "1")
                v = body().get_attribute("data-version")
                d.find_elements("css selector", "button.card[data-action]")[0].click()
                _wait(lambda: body().get_attribute("data-version") != v)
            _wait(lambda: body().get_attribute("data-your-turn") == "1")
            d.save_screenshot(str(out / "web_game.png"))

            d.get(base + "/")
            d.find_element("id", "solo-seeded").click()
            d.find_element("id", "solo-seed").send_keys("12")
            d.find_element("id", "solo-start").click()
            _wait(lambda: "/solo/" in d.current_url)
            _wait(lambda: body().get_attribute("data-version") == "0")
            for k, sel in enumerate(["text.clickable[data-action='5']", "g.invbtn[data-action='40']",
                                     "text.clickable[data-action='14']"]):
                d.find_element("css selector", sel).click()
                _wait(lambda: body().get_attribute("data-version") == str(k + 1))
            d.find_element("id", "hint-button").click()
            _wait(lambda: "fit" in d.find_element("id", "hint").text)
            d.save_screenshot(str(out / "web_solo.png"))

            _, rec = play_game(GameConfig(num_players=4), ["deducer"] * 4, 8)
            import urllib.request

            req = urllib.request.Request(base + "/api/replays", method="POST",
                                         data=json.dumps({"text": json.dumps(record_to_dict(rec.record()))}).encode(),
                                         headers={"content-type": "application/json"})
            with urllib.request.urlopen(req) as resp:
                link = json.loads(resp.read())["link"]
            d.get(base + link)
            _wait(lambda: body().get_attribute("data-position") == "0")
            for _ in range(14):
                body().send_keys(Keys.ARROW_RIGHT)
            _wait(lambda: body().get_attribute("data-position") == "14")
            body().send_keys("1")
            _wait(lambda: d.find_element("id", "solver").get_attribute("data-status") == "done")
            d.save_screenshot(str(out / "web_replay.png"))
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)
    print(f"screenshots written to {out}/web_{{index,game,solo,replay}}.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
