"""The web app in a real headless browser (Debian's Chromium, driven by Selenium):
games played by clicking, what the page announces, the review, hints, the rules.
Screenshots of the board and the review go to runs/browser-tests/."""
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

from tabula.web import create_app

CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
SHOTS = Path(__file__).resolve().parent.parent / "runs" / "browser-tests"
pytestmark = [pytest.mark.browser, pytest.mark.skipif(
    not (CHROMIUM and DRIVER), reason="needs chromium and chromedriver (.ci/run installs them)")]


@pytest.fixture(scope="module")
def server(tables):
    import uvicorn
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(create_app(tables[("ur", 3)]), host="127.0.0.1", port=port,
                            log_level="warning")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    for _ in range(100):
        if running.started:
            break
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    running.should_exit = True
    thread.join(timeout=5)


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu",
                 "--disable-dev-shm-usage", "--window-size=1100,1400"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.implicitly_wait(0)
    SHOTS.mkdir(parents=True, exist_ok=True)
    yield driver
    driver.quit()


def wait(driver, condition, timeout=10.0):
    end = time.time() + timeout
    while time.time() < end:
        found = condition()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError("the page did not get there in time")


def start(driver, url, game, pieces, level=None, hotseat=False, seed=None, rules=None,
          setup=None):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    driver.get(f"{url}/" + (f"?seed={seed}" if seed is not None else ""))
    wait(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#game option"))
    Select(driver.find_element(By.ID, "game")).select_by_value(game)
    if rules:
        Select(driver.find_element(By.ID, "rules")).select_by_value(rules)
    Select(driver.find_element(By.ID, "pieces")).select_by_value(str(pieces))
    driver.find_element(By.CSS_SELECTOR,
                        f"input[name=mode][value={'hotseat' if hotseat else 'computer'}]").click()
    if level:
        driver.find_element(By.CSS_SELECTOR, f"input[name=level][value={level}]").click()
    if setup:
        driver.find_element(By.ID, "arrangement").send_keys(setup)
    driver.find_element(By.ID, "start").click()
    wait(driver, lambda: driver.find_element(By.ID, "play").is_displayed())


def step(driver) -> str:
    """Throw, or click the first ringed piece; returns what was done."""
    from selenium.webdriver.common.by import By
    status = driver.find_element(By.ID, "status").text
    if driver.execute_script("return current.state.phase") == "over":
        return "over"
    throw = driver.find_element(By.ID, "throw")
    if throw.is_enabled():
        log = len(driver.find_elements(By.CSS_SELECTOR, "#log li"))
        throw.click()
        wait(driver, lambda: len(driver.find_elements(By.CSS_SELECTOR, "#log li")) > log)
        return "throw"
    ringed = driver.find_elements(By.CSS_SELECTOR, "#board .movable, .pools .movable")
    assert ringed, f"nothing to do at: {status}"
    log = len(driver.find_elements(By.CSS_SELECTOR, "#log li"))
    ringed[0].click()
    choices = driver.find_elements(By.CSS_SELECTOR, "#board .cell.choice")
    if choices:   # a piece with several moves: then one of the squares it reaches
        choices[0].click()
    wait(driver, lambda: len(driver.find_elements(By.CSS_SELECTOR, "#log li")) > log)
    assert "error" not in driver.find_element(By.ID, "log").text, "a click asked twice"
    return "move"


def test_an_ur_game_to_the_end_with_a_hint_a_capture_and_the_review(browser, server):
    from selenium.webdriver.common.by import By
    start(browser, server, "ur", 3, level="apprentice", seed=5)
    cells = browser.find_elements(By.CSS_SELECTOR, "#board .cell")
    assert len(cells) == 20 and len(browser.find_elements(By.CSS_SELECTOR, ".cell.rosette")) == 5
    hinted = False
    for _ in range(1000):
        done = step(browser)
        if done == "over":
            break
        moves = browser.find_elements(By.CSS_SELECTOR, "#moves button")
        if not hinted and len(moves) > 1:
            browser.save_screenshot(str(SHOTS / "ur-board.png"))
            browser.find_element(By.ID, "hint").click()
            box = wait(browser, lambda: browser.find_element(By.ID, "hint-box").is_displayed()
                       and browser.find_element(By.ID, "hint-box"))
            assert "exact, from the table" in box.text and "points lost" in box.text
            hinted = True
    log = browser.find_element(By.ID, "log").text
    status = browser.find_element(By.ID, "status").text
    assert status in ("You win the game (light).", "The computer wins the game (dark).")
    assert "captures the piece on" in log and "throws again" in log
    review = wait(browser, lambda: browser.find_element(By.ID, "review").is_displayed()
                  and browser.find_element(By.ID, "review"))
    assert "points" in review.text and "played best" in review.text
    assert browser.find_elements(By.CSS_SELECTOR, "#review svg polyline")
    axes = [t.text for t in browser.find_elements(By.CSS_SELECTOR, "#review svg text")]
    assert {"0%", "50%", "100%", "throw"} <= set(axes), axes
    assert "inaccuracy below 2, mistake 2 to 5, blunder 5 or more" in review.text
    assert "played best" in review.text
    browser.save_screenshot(str(SHOTS / "ur-review.png"))
    assert hinted


def test_the_review_steps_through_every_throw(browser, server):
    """After the game: the arrow keys and buttons step through every throw, each
    shown on the board with who threw what and, for a person's decision, its label;
    a worst decision's button goes to its throw."""
    import re
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    start(browser, server, "ur", 3, level="apprentice", seed=7)
    for _ in range(1000):
        if step(browser) == "over":
            break
    text = lambda: browser.find_element(By.ID, "replay-text").text   # noqa: E731
    assert wait(browser, lambda: browser.find_element(By.ID, "replay").is_displayed())
    assert text().startswith("The end: ")
    last = int(browser.execute_script("return replay.frames.length"))
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    assert re.match(rf"Throw {last} of {last}: (you|the computer) \((light|dark)\) threw \d",
                    text()), text()
    browser.find_element(By.ID, "first").click()
    assert text().startswith(f"Throw 1 of {last}: you (light) threw")
    served = browser.execute_script("return replay.frames[0].board.cells")
    assert served == {} and not browser.find_elements(By.CSS_SELECTOR, "#board .piece")
    labelled = 0
    for n in range(1, last):
        browser.find_element(By.ID, "forward").click()
        assert text().startswith(f"Throw {n + 1} of {last}")
        labelled += bool(re.search(r"\((best|inaccuracy|mistake|blunder)", text()))
    # every decision of the person's with a choice, and only those, carries its label
    assert labelled == browser.execute_script("return Object.keys(replay.judged[0]).length")
    assert labelled > 0
    worst = browser.find_elements(By.CSS_SELECTOR, "#review button.to-throw")
    if worst:
        worst[0].click()
        assert text().startswith(f"{worst[0].text.capitalize()} of {last}")
    browser.save_screenshot(str(SHOTS / "ur-replay.png"))


def test_masters_draws_its_path_and_plays(browser, server):
    """The rule set is chosen on the page; the board draws each side's path (16 squares
    on Masters' path) and marks no rosette safe; a few turns play."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    browser.get(f"{server}/")
    wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#game option"))
    Select(browser.find_element(By.ID, "rules")).select_by_value("blitz")
    assert Select(browser.find_element(By.ID, "pieces")).first_selected_option.text.startswith("5")
    start(browser, server, "ur", 2, level="apprentice", seed=3, rules="masters")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .cell")) == 20
    assert len(browser.find_elements(By.CSS_SELECTOR, ".cell.rosette")) == 5
    assert not browser.find_elements(By.CSS_SELECTOR, ".cell.safe")
    lines = browser.find_elements(By.CSS_SELECTOR, "#paths polyline")
    assert [len(line.get_attribute("points").split()) for line in lines] == [16, 16]
    assert "Masters' path" in browser.find_element(By.ID, "legend").text
    assert "masters rules" in browser.find_element(By.ID, "log").text
    for _ in range(6):
        if step(browser) == "over":
            break
    browser.save_screenshot(str(SHOTS / "ur-masters-board.png"))


def test_einstein_on_the_3x3_board_to_the_end_with_numbered_cubes(browser, server):
    """The board of the chosen size, each cube showing its number; a whole game plays by
    clicking the ringed cubes, and ends with a win."""
    from selenium.webdriver.common.by import By
    start(browser, server, "einstein", 3, level="apprentice", seed=2, rules="3x3")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .cell")) == 9
    numbers = sorted(p.text for p in browser.find_elements(By.CSS_SELECTOR, "#board .piece"))
    assert numbers == ["1", "1", "2", "2", "3", "3"]
    browser.save_screenshot(str(SHOTS / "einstein-board.png"))
    for _ in range(200):
        if step(browser) == "over":
            break
    assert "win" in browser.find_element(By.ID, "status").text
    assert "cube" in browser.find_element(By.ID, "log").text


@pytest.mark.parametrize("size", [(390, 844), (1100, 1400)])
def test_an_einstein_set_up_chosen_on_the_page_in_the_sides_colours(browser, server, size):
    """EinStein asks for your set-up (and says how one is written); the board starts as
    typed, red's cubes drawn red and blue's blue, the goal corners marked. Ur asks
    for none. Only the levels that can play a variant are offered, the others said
    why. On a phone as on a desktop."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    from tabula.games import get_game
    from tabula.session import start_session
    browser.set_window_size(*size)
    start(browser, server, "ur", 3, level="apprentice")
    assert not browser.find_element(By.ID, "arrange").is_displayed()
    start(browser, server, "einstein", 3, level="apprentice", seed=5, rules="3x3", setup="312")
    expected = start_session(get_game("einstein", 3, "3x3"), "apprentice", "red", seed=5,
                             setup="312").board()
    drawn = {p.find_element(By.XPATH, "..").get_attribute("id")[len("cell-"):]: p.text
             for p in browser.find_elements(By.CSS_SELECTOR, "#board .piece.seat0")}
    assert drawn == {c: str(expected["labels"][c]) for c, s in expected["cells"].items() if s == 0}
    colours = browser.execute_script(
        "return [0, 1].map((s) => getComputedStyle(document.querySelector("
        "`#board .piece.seat${s}`)).backgroundColor)")
    assert colours == ["rgb(198, 40, 40)", "rgb(21, 101, 192)"]
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .cell.goal")) == 2
    browser.save_screenshot(str(SHOTS / "einstein-setup.png"))
    browser.get(server)   # a wrong set-up: one line, and the form stays
    wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#game option"))
    Select(browser.find_element(By.ID, "game")).select_by_value("einstein")
    assert "once each" in browser.find_element(By.ID, "arrange-help").text
    Select(browser.find_element(By.ID, "rules")).select_by_value("3x3")   # no network plays it
    assert [o.text for o in Select(browser.find_element(By.ID, "pieces")).options] == [
        "1", "2", "3"]
    shown = [i.get_attribute("value") for i in browser.find_elements(
        By.CSS_SELECTOR, "input[name=level]") if i.is_displayed()]
    assert shown == ["apprentice"]
    assert "need a network" in browser.find_element(By.ID, "levels-note").text
    browser.set_window_size(1100, 1400)
    browser.find_element(By.CSS_SELECTOR, "input[name=level][value=apprentice]").click()
    browser.find_element(By.ID, "arrangement").send_keys("1234567")
    browser.find_element(By.ID, "start").click()
    assert "once each" in wait(browser, lambda: browser.find_element(By.ID, "setup-error").text)


def test_the_standard_einstein_game_at_master_strength(browser, server):
    """The standard game (5 x 5, six cubes a side, no table) is the page's default for
    EinStein, and the Master (a tree search over the network taught by search) plays
    it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    browser.get(f"{server}/")
    wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#game option"))
    Select(browser.find_element(By.ID, "game")).select_by_value("einstein")
    assert Select(browser.find_element(By.ID, "pieces")).first_selected_option.text \
        == "6 (network)"
    master = browser.find_element(By.CSS_SELECTOR, "input[name=level][value=master]")
    assert "tree search over the network" in master.find_element(By.XPATH, "..") \
        .get_attribute("title")   # each strength says what it is
    start(browser, server, "einstein", 6, level="master", seed=3)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .cell")) == 25
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .piece")) == 12
    for _ in range(6):
        if step(browser) == "over":
            break
    assert "the computer (blue) plays" in browser.find_element(By.ID, "log").text
    browser.save_screenshot(str(SHOTS / "einstein6-board.png"))


def test_senet_for_a_few_turns_by_keyboard_and_clicks(browser, server):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    start(browser, server, "senet", 4, level="journeyman", seed=2)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .cell")) == 30
    water = browser.find_element(By.CSS_SELECTOR, ".cell.water")
    assert water.get_attribute("title").startswith("27, the House of Water")
    assert "26 the House of Beauty" in browser.find_element(By.ID, "legend").text
    body = browser.find_element(By.TAG_NAME, "body")
    log = len(browser.find_elements(By.CSS_SELECTOR, "#log li"))
    body.send_keys("t")   # the keyboard throws
    wait(browser, lambda: len(browser.find_elements(By.CSS_SELECTOR, "#log li")) > log)
    for _ in range(8):
        if step(browser) == "over":
            break
    assert "white" in browser.find_element(By.ID, "log").text
    undo = browser.find_element(By.ID, "undo")
    assert undo.is_enabled()   # a move of white's was made against the computer
    undo.click()
    assert wait(browser, lambda: "take back the move of throw" in
                browser.find_element(By.ID, "log").text)
    assert browser.execute_script("return current.state.phase") == "move"
    sticks = browser.find_element(By.ID, "dice").text   # sticks, not Ur's tetrahedra
    assert sticks and set(sticks.split()[0]) <= {"\u25AF", "\u25AE"}, sticks
    assert Keys   # imported for the key names above
    browser.save_screenshot(str(SHOTS / "senet-board.png"))


def test_pass_the_screen(browser, server):
    from selenium.webdriver.common.by import By
    start(browser, server, "ur", 2, hotseat=True, seed=1)
    seen = set()
    for _ in range(60):
        status = browser.find_element(By.ID, "status").text
        seen.add(status.split()[0])
        if step(browser) == "over":
            break
    assert {"light", "dark"} <= seen   # both sides played from this screen


def test_the_rules_page_opens(browser, server):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    browser.get(f"{server}/")
    wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#game option"))
    Select(browser.find_element(By.ID, "game")).select_by_value("senet")
    assert browser.find_element(By.ID, "rules-link").get_attribute("href").endswith("/senet")
    Select(browser.find_element(By.ID, "game")).select_by_value("ur")
    browser.find_element(By.ID, "rules-link").click()
    browser.switch_to.window(browser.window_handles[-1])   # it opens in a new tab
    heading = browser.find_element(By.TAG_NAME, "h1").text
    assert heading.startswith("The Royal Game of Ur"), (heading, browser.current_url)
    assert browser.find_elements(By.TAG_NAME, "table")
    assert browser.title == "Rules of The Royal Game of Ur - tabula"
    picture = browser.find_elements(By.CSS_SELECTOR, ".board-picture .cell")   # the board
    assert len(picture) == 20 and picture[0].size["width"] > 20   # drawn, at the start
    browser.save_screenshot(str(SHOTS / "ur-rules.png"))
    tabs = len(browser.window_handles)
    browser.find_element(By.LINK_TEXT, "Back to the game").click()   # closes its tab, so
    assert wait(browser, lambda: len(browser.window_handles) == tabs - 1)  # the game is there
    browser.switch_to.window(browser.window_handles[0])


BOARD_AS_SERVED = """
const cells = current.state.board.cells, shown = {};
for (const div of document.querySelectorAll("#board .cell")) {
  const p = div.querySelector(".piece");
  if (p) shown[div.id.slice(5)] = p.classList.contains("seat1") ? 1 : 0;
}
return [JSON.stringify(Object.fromEntries(Object.entries(cells).sort())),
        JSON.stringify(Object.fromEntries(Object.entries(shown).sort()))];
"""


@pytest.mark.parametrize("game, pieces", [("ur", 3), ("senet", 4)])
def test_a_phone_screen_fits_the_board_and_the_computer_s_moves_slide(browser, server, game,
                                                                      pieces):
    """At 390 x 844 the page has no sideways scroll and its buttons are at least 44 px
    high; every message says you or the computer; the computer's moves slide as ghosts
    that leave the board as the server reports it, its last move marked."""
    from selenium.webdriver.common.by import By
    browser.set_window_size(390, 844)
    try:
        start(browser, server, game, pieces, level="apprentice", seed=4)
        browser.execute_script("""window.ghostsSeen = 0;
            new MutationObserver((changes) => changes.forEach((c) => c.addedNodes.forEach(
              (n) => { if (n.classList && n.classList.contains("ghost")) ghostsSeen++; })))
            .observe(document.getElementById("board-box"), {childList: true});""")
        for turn in range(12):
            if step(browser) == "over":
                break
            wide = browser.execute_script(
                "return [document.documentElement.scrollWidth, window.innerWidth]")
            assert wide[0] <= wide[1], (turn, wide)
            assert wait(browser, lambda: not browser.find_elements(By.CSS_SELECTOR, ".ghost"))
            served, shown = browser.execute_script(BOARD_AS_SERVED)
            assert served == shown, turn
        log = [li.text.split(". ", 1)[-1] if li.text[0].isdigit() else li.text
               for li in browser.find_elements(By.CSS_SELECTOR, "#log li")][1:]
        assert log and all(line.startswith(("you (", "the computer (")) for line in log), log
        assert browser.find_elements(By.CSS_SELECTOR, ".cell.last-to.last-seat1")
        assert browser.execute_script("return ghostsSeen") > 0
        for button in browser.find_elements(By.CSS_SELECTOR, "#controls button, #moves button"):
            if button.is_displayed():
                assert button.size["height"] >= 44, button.text
        browser.save_screenshot(str(SHOTS / f"{game}-phone.png"))
    finally:
        browser.set_window_size(1100, 1400)


def test_a_bear_off_with_a_double_and_a_take_on_a_phone(browser, server):
    """Two people at one screen, 390 x 844: white doubles, black takes and the cube
    moves to black's side at 2; the game plays to its end by the listed moves (in
    backgammon notation, the dice drawn as dice, pip counts shown), the status names
    the points won, and the review counts the cube decisions apart."""
    import re
    from selenium.webdriver.common.by import By
    browser.set_window_size(390, 844)
    try:
        start(browser, server, "bearoff", 10, hotseat=True, seed=4)
        status = lambda: browser.find_element(By.ID, "status").text   # noqa: E731
        assert status() == "white to double or throw."
        assert not browser.find_elements(By.CSS_SELECTOR, "#board .movable")
        assert browser.find_element(By.ID, "cube-centre").text == "1"
        assert re.fullmatch(r"\d+ pips", browser.find_element(By.ID, "pips0").text)
        browser.find_element(By.ID, "hint").click()   # the cube decision's hint
        hinted = wait(browser, lambda: browser.find_element(By.ID, "hint-box").text)
        assert "no double" in hinted and "double to 2" in hinted and "equity" in hinted
        browser.find_element(By.ID, "double").click()
        assert wait(browser, lambda: status() == "white doubles to 2: black, take or pass.")
        assert browser.find_element(By.ID, "hint").is_enabled()   # take or pass: a hint
        browser.save_screenshot(str(SHOTS / "bearoff-double.png"))
        browser.find_element(By.ID, "take").click()
        assert wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#pools-top #cube"))
        assert browser.find_element(By.CSS_SELECTOR, "#pools-top #cube").text == "2"
        assert "black takes: the cube is at 2" in browser.find_element(By.ID, "log").text
        assert not browser.find_element(By.ID, "double").is_enabled()   # black's cube now
        for _ in range(200):
            if browser.execute_script("return current.state.phase") == "over":
                break
            log = len(browser.find_elements(By.CSS_SELECTOR, "#log li"))
            throw = browser.find_element(By.ID, "throw")
            if throw.is_enabled():
                throw.click()
            else:
                moves = browser.find_elements(By.CSS_SELECTOR, "#moves button")
                assert not browser.find_elements(By.CSS_SELECTOR, "#board .movable")
                assert status().endswith("choose a move below.")
                assert all(re.fullmatch(r"(\d/(\d|off)(\(\d\))? ?)+", m.text) for m in moves)
                moves[0].click()
            wait(browser, lambda: len(browser.find_elements(By.CSS_SELECTOR, "#log li")) > log)
            wide = browser.execute_script(
                "return [document.documentElement.scrollWidth, window.innerWidth]")
            assert wide[0] <= wide[1], wide
        dice = browser.find_element(By.ID, "dice").text
        assert re.fullmatch(r"[\u2680-\u2685] [\u2680-\u2685] \d-\d", dice), dice
        assert re.fullmatch(r"(white|black) wins [248] points\.", status()), status()
        review = wait(browser, lambda: browser.find_element(By.ID, "review").is_displayed()
                      and browser.find_element(By.ID, "review"))
        assert "cube decisions: 1, 1 not the best" in review.text or \
            "cube decisions: 1, 0 not the best" in review.text
        assert "points of equity" in review.text
        browser.save_screenshot(str(SHOTS / "bearoff-phone.png"))
    finally:
        browser.set_window_size(1100, 1400)


def test_a_capture_game_played_for_money_hotseat_and_against_the_computer(browser, server):
    """The toy capture game under its money rules (a game with contact, not a race),
    through the same page: two people double, take and play it out by the ringed
    pieces, the cube beside its owner; then against the computer, the person doubles
    and the computer answers at once. The status names the points won."""
    import re
    from selenium.webdriver.common.by import By
    status = lambda: browser.find_element(By.ID, "status").text   # noqa: E731
    for size in ((390, 844), (1100, 1400)):
        browser.set_window_size(*size)
        start(browser, server, "toycapture", 2, hotseat=True, seed=4, rules="money")
        assert status() == "red to double or throw."
        assert browser.find_element(By.ID, "cube-centre").text == "1"
        browser.find_element(By.ID, "double").click()
        assert wait(browser, lambda: status() == "red doubles to 2: blue, take or pass.")
        browser.find_element(By.ID, "take").click()
        assert wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#pools-top #cube"))
        assert browser.find_element(By.CSS_SELECTOR, "#pools-top #cube").text == "2"
        for _ in range(100):
            if step(browser) == "over":
                break
            wide = browser.execute_script(
                "return [document.documentElement.scrollWidth, window.innerWidth]")
            assert wide[0] <= wide[1], wide
        assert re.fullmatch(r"(red|blue) wins [24] points\.", status()), status()
    browser.save_screenshot(str(SHOTS / "capture-money.png"))
    start(browser, server, "toycapture", 2, level="apprentice", seed=2, rules="money")
    assert browser.execute_script(   # the Master needs a table to play for money
        "return document.querySelector('input[name=level][value=master]').parentElement.hidden")
    browser.find_element(By.ID, "double").click()
    assert wait(browser, lambda: re.search(r"the computer \(blue\) (takes|passes)",
                                           browser.find_element(By.ID, "log").text))
    phase = lambda: browser.execute_script("return current.state.phase")   # noqa: E731
    for _ in range(100):
        if phase() == "take":   # the computer doubled: take
            browser.find_element(By.ID, "take").click()
            wait(browser, lambda: phase() != "take")
        elif step(browser) == "over":
            break
    assert re.fullmatch(r"(You|The computer) wins? [1248] points?( \((red|blue)\))?\.",
                        status()), status()


@pytest.mark.parametrize("size", [(390, 844), (1100, 1400)])
def test_a_reload_resumes_the_game(browser, server, size):
    """The game's id is in the address: a reload shows the game as it stood, not the
    set-up form (issue 65); a new game forgets it, and an id the server does not know
    says so on the form; on a phone as on a desktop."""
    from selenium.webdriver.common.by import By
    browser.set_window_size(*size)
    start(browser, server, "ur", 3, level="apprentice", seed=7)
    for _ in range(4):
        step(browser)
    assert "game=" in browser.current_url
    board = browser.execute_script("return JSON.stringify(current.state.board)")
    browser.refresh()
    wait(browser, lambda: browser.find_element(By.ID, "play").is_displayed())
    assert browser.execute_script("return JSON.stringify(current.state.board)") == board
    assert "resumed" in browser.find_element(By.ID, "log").text
    browser.find_element(By.ID, "new").click()
    browser.switch_to.alert.accept()
    assert "game=" not in browser.current_url
    browser.get(f"{server}/?game=nope")
    wait(browser, lambda: "cannot be resumed" in browser.find_element(By.ID, "setup-error").text)
    assert browser.find_element(By.ID, "setup").is_displayed()
    browser.set_window_size(1100, 1400)


def test_a_double_tap_sends_one_request(browser, server):
    """Two taps on Throw before the answer: one throw, no error line (issue 65: the
    second got a 409); the page is busy while a request is on its way."""
    from selenium.webdriver.common.by import By
    start(browser, server, "ur", 3, level="apprentice", seed=8)
    log = len(browser.find_elements(By.CSS_SELECTOR, "#log li"))
    browser.execute_script("throwDice(); window.busyNow = document.getElementById('play')"
                           ".getAttribute('aria-busy'); throwDice();")
    wait(browser, lambda: len(browser.find_elements(By.CSS_SELECTOR, "#log li")) > log)
    time.sleep(0.3)
    text = browser.find_element(By.ID, "log").text
    assert "error" not in text and text.count("throw") >= 1
    assert browser.execute_script("return window.busyNow") == "true"
    assert browser.find_element(By.ID, "play").get_attribute("aria-busy") is None


def test_rules_pages_and_the_review_chart_fit_a_phone(browser, server):
    """At 390 px the rules pages do not scroll sideways (their board diagrams and tables
    scroll on their own), and the chart of a short game labels each throw once, apart
    from the axis's name (issue 65: 658 px wide, 'thro143', '1 1 0')."""
    from selenium.webdriver.common.by import By
    browser.set_window_size(390, 844)
    try:
        for name in ("ur", "senet", "einstein", "bearoff"):
            browser.get(f"{server}/rules/{name}")
            wide = browser.execute_script(
                "return document.documentElement.scrollWidth - window.innerWidth")
            assert wide <= 0, (name, wide)
        start(browser, server, "ur", 3, level="apprentice", seed=2)
        for frames, ticks in ((0, []), (1, ["1"]), (2, ["1", "2"]), (143, ["1", "72", "143"])):
            svg = browser.execute_script(
                "return chart({chances: Array(arguments[0] + 1).fill(0.5), judged: [], "
                "side: 'light', digits: 2}, Array.from({length: arguments[0]}, "
                "(_, i) => ({number: i + 1})))", frames)
            browser.execute_script("document.getElementById('log').innerHTML = arguments[0]",
                                   svg)
            texts = [t.text for t in browser.find_elements(By.CSS_SELECTOR, "#log svg text")
                     if t.text not in ("0%", "50%", "100%", "throw")]
            assert texts == ticks, (frames, texts)
    finally:
        browser.set_window_size(1100, 1400)


def test_a_bear_off_move_slides_checker_by_checker(browser, server):
    """The computer's bear-off move slides each checker of it, the borne-off ones into
    the tray (issue 65: one checker from the 6-point off the board)."""
    start(browser, server, "bearoff", 10, level="apprentice", seed=3)
    ghosts = browser.execute_script("""
        const seat = 1 - current.state.humans[0];
        animate([{kind: "move", seat, move: {from_cell: `p${seat}-6`, to_cell: `off${seat}`,
                  steps: [{from_cell: `p${seat}-6`, to_cell: `p${seat}-3`},
                          {from_cell: `p${seat}-1`, to_cell: `off${seat}`}]}}]);
        return document.querySelectorAll(".ghost").length;""")
    assert ghosts == 2


@pytest.mark.parametrize("size", [(390, 844), (1100, 1400)])
def test_the_bear_off_tray_is_a_place_on_the_board(browser, server, size):
    """Each side's checkers borne off stand in its tray at the end of its row, counted,
    on a phone as on a desktop (issue 65: a line of counters below the board)."""
    from selenium.webdriver.common.by import By
    browser.set_window_size(*size)
    try:
        start(browser, server, "bearoff", 10, hotseat=True, seed=4)
        assert not browser.find_elements(By.CSS_SELECTOR, ".pools .pool")
        browser.execute_script("current.state.board.off = [3, 1]; drawBoard();")
        trays = [browser.find_element(By.CSS_SELECTOR, f"#board #cell-off{seat} .piece").text
                 for seat in (0, 1)]
        assert trays == ["3", "1"]
        assert browser.execute_script(
            "return document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        browser.set_window_size(1100, 1400)


def test_keyboard_keys_are_not_shown_on_a_touch_screen(browser, server):
    """The buttons name their keys (Throw t) where there is a keyboard to press them,
    not on a touch screen without one (issue 65)."""
    from selenium.webdriver.common.by import By
    start(browser, server, "ur", 3, level="apprentice")
    assert browser.find_element(By.CSS_SELECTOR, "#throw kbd").is_displayed()
    browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled",
                            {"enabled": True, "maxTouchPoints": 5})
    try:
        start(browser, server, "ur", 3, level="apprentice")
        assert not browser.find_element(By.CSS_SELECTOR, "#throw kbd").is_displayed()
    finally:
        browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})


@pytest.mark.parametrize("size", [(390, 844), (1100, 1400)])
def test_the_last_board_is_the_board_played(browser, server, size):
    """A pass ends a bear-off on the board the double was made on (issue 65: the sides
    were swapped, checkers, off counts and pips), and EinStein's winning cube stands on
    its goal at the end (it vanished); on a phone as on a desktop."""
    from selenium.webdriver.common.by import By
    browser.set_window_size(*size)
    try:
        start(browser, server, "bearoff", 10, hotseat=True, seed=6)
        pips = [browser.find_element(By.ID, f"pips{seat}").text for seat in (0, 1)]
        board = browser.execute_script("return JSON.stringify(current.state.board)")
        browser.find_element(By.ID, "double").click()
        wait(browser, lambda: browser.find_element(By.ID, "pass").is_enabled())
        browser.find_element(By.ID, "pass").click()
        wait(browser, lambda: browser.execute_script("return current.state.phase") == "over")
        assert [browser.find_element(By.ID, f"pips{seat}").text for seat in (0, 1)] == pips
        assert browser.execute_script("return JSON.stringify(current.state.board)") == board
        start(browser, server, "einstein", 3, hotseat=True, seed=1, rules="3x3")
        for _ in range(200):
            if step(browser) == "over":
                break
        winner = browser.execute_script("return current.state.winner")
        side = browser.execute_script("return current.state.sides")[winner]
        goal = browser.find_element(By.CSS_SELECTOR, f"#board .cell[title='goal of {side}']")
        # this game (seed 1, the first ringed cube each time) is won in the corner
        assert goal.find_elements(By.CSS_SELECTOR, f".piece.seat{winner}")
    finally:
        browser.set_window_size(1100, 1400)


CHECKERS_SHOWN = """
const shown = {};
for (const div of document.querySelectorAll("#board .cell.point, #board .cell.bar")) {
  const n = div.querySelectorAll(".piece").length;
  if (n) shown[div.id.slice(5)] = n;
}
return JSON.stringify(Object.entries(shown).sort());
"""


@pytest.mark.parametrize("size", [(390, 844), (1100, 1400)])
def test_hypergammon_on_a_backgammon_board_played_by_tapping_checkers(browser, server, size):
    """Hypergammon, two people at one screen, at phone and desktop sizes: 24 triangular
    points, the bar and the trays, every checker drawn on its point; after a double and
    a take the cube stands on the taker's side; plays are tapped checker by checker (a
    tap moves one die's step, a checker with two steps open rings the points it can
    reach, Undo takes the taps back, the last tap sends the play) and logged in
    backgammon notation; nothing is wider than the screen."""
    import json
    import re
    from selenium.webdriver.common.by import By
    browser.set_window_size(*size)
    count = lambda css: len(browser.find_elements(By.CSS_SELECTOR, css))   # noqa: E731
    try:
        start(browser, server, "backgammon", 3, hotseat=True, seed=5, rules="hyper")
        assert count("#board.backgammon .cell.point") == 24
        assert count("#board .cell.bar") == 2 and count("#board .cell.tray") == 2
        assert browser.execute_script(
            "return getComputedStyle(document.querySelector('#board .cell.point'), "
            "'::before').clipPath").startswith("polygon")      # drawn as a triangle
        assert count("#board .piece") == 6
        browser.find_element(By.ID, "double").click()
        wait(browser, lambda: browser.find_element(By.ID, "take").is_enabled())
        browser.find_element(By.ID, "take").click()
        assert wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#pools-top #cube"))
        assert browser.find_element(By.CSS_SELECTOR, "#pools-top #cube").text == "2"
        served = browser.execute_script(CHECKERS_SHOWN)
        undone = choices = 0
        for turn in range(16):
            if browser.execute_script("return current.state.phase") == "over":
                break
            log = count("#log li")
            if browser.find_element(By.ID, "throw").is_enabled():
                browser.find_element(By.ID, "throw").click()
                wait(browser, lambda: count("#log li") > log)
                served = browser.execute_script(CHECKERS_SHOWN)
                continue
            assert "tap a ringed checker" in browser.find_element(By.ID, "status").text
            for taps in range(5):
                if count("#log li") > log:
                    break
                browser.find_elements(By.CSS_SELECTOR, "#board .movable")[-1].click()
                open_choices = browser.find_elements(By.CSS_SELECTOR, "#board .cell.choice")
                if open_choices:
                    choices += 1
                    open_choices[0].click()
                time.sleep(0.1)
                if count("#log li") == log and not undone:   # the tap shown, then undone
                    assert browser.execute_script("return tapped.length") == 1
                    assert browser.execute_script(CHECKERS_SHOWN) != served
                    browser.find_element(By.ID, "undo").click()
                    assert browser.execute_script(CHECKERS_SHOWN) == served
                    undone += 1
            wait(browser, lambda: count("#log li") > log)
            played = browser.find_elements(By.CSS_SELECTOR, "#log li")[-1].text
            assert re.fullmatch(r"(white|black) plays ((bar|\d+)(/(\d+|off)\*?)+(\(\d\))? ?)+"
                                r"(: .*)?", played), played
            assert "error" not in browser.find_element(By.ID, "log").text
            wide = browser.execute_script(
                "return [document.documentElement.scrollWidth, window.innerWidth]")
            assert wide[0] <= wide[1], wide
            served = json.loads(browser.execute_script(CHECKERS_SHOWN))
            assert sum(n for _, n in served) <= 6
            served = browser.execute_script(CHECKERS_SHOWN)
        assert undone and choices
        browser.save_screenshot(str(SHOTS / f"hypergammon-{size[0]}.png"))
    finally:
        browser.set_window_size(1100, 1400)


def test_a_checkers_endgame_on_a_phone_and_a_desktop(browser, server):
    """Checkers, a game without dice: the 32 dark squares of an 8 x 8 board, no throw
    button, the moves listed in the players' notation and played by a tap, the board
    following; on a phone nothing is wider than the screen."""
    from selenium.webdriver.common.by import By
    for size in ((390, 844), (1100, 1400)):
        browser.set_window_size(*size)
        start(browser, server, "checkers", 4, level="apprentice", seed=3)
        assert len(browser.find_elements(By.CSS_SELECTOR, "#board .cell")) == 32
        assert not browser.find_element(By.ID, "throw").is_displayed()
        assert browser.find_element(By.ID, "status").text.startswith("Your move (black)")
        assert "4 pieces on the board in all" in browser.find_element(By.ID, "log").text
        listed = [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#moves button")]
        assert listed == ["1-5", "1-6", "2-6", "2-7"]
        log = len(browser.find_elements(By.CSS_SELECTOR, "#log li"))
        browser.find_elements(By.CSS_SELECTOR, "#moves button")[1].click()
        wait(browser, lambda: len(browser.find_elements(By.CSS_SELECTOR, "#log li")) > log + 1)
        black = {p.find_element(By.XPATH, "..").get_attribute("id")
                 for p in browser.find_elements(By.CSS_SELECTOR, "#board .piece.seat0")}
        assert black == {"cell-s2", "cell-s6"}
        assert browser.execute_script("return document.documentElement.scrollWidth") <= size[0]
        browser.save_screenshot(str(SHOTS / f"checkers-{size[0]}.png"))
    # a position set up by tapping: Black's king on 1 against White's kings on 31 and 32,
    # White to move (the computer), then the person's move
    browser.find_element(By.ID, "edit").click()
    # each tap puts the next kind (black, black king, white, white king), then none:
    # clear the board, then place the kings
    board = browser.execute_script("return current.state.board")
    taps = {cell: 4 - (2 * seat + (board["labels"].get(cell) == "K"))
            for cell, seat in board["cells"].items()}
    for cell, more in (("s1", 2), ("s31", 4), ("s32", 4)):
        taps[cell] = taps.get(cell, 0) + more
    for cell, count in taps.items():
        for _ in range(count):
            browser.find_element(By.ID, f"cell-{cell}").click()
    from selenium.webdriver.support.ui import Select
    Select(browser.find_element(By.ID, "edit-turn")).select_by_visible_text("white")
    browser.find_element(By.ID, "edit-play").click()
    wait(browser, lambda: "from a position set up" in browser.find_element(By.ID, "log").text)
    kings = {p.find_element(By.XPATH, "..").get_attribute("id"): p.text
             for p in browser.find_elements(By.CSS_SELECTOR, "#board .piece.seat0")}
    assert kings == {"cell-s1": "K"} and "the computer (white) plays" in \
        browser.find_element(By.ID, "log").text
    browser.save_screenshot(str(SHOTS / "checkers-set-up.png"))
