#!/usr/bin/env python3
"""The Transaction Manager page of `storesim serve` in a real browser (issue 48, docs/page.md).

Drives Debian's chromium through chromium-driver with Selenium (PyPI), headless:
the first screen, a purchase made by another process (`storesim buy`) appearing within 2 s,
Approve (Ask to Buy), Refund with a percent, Advance showing the renewal, Resend, a customer
named as markup shown as text and run as nothing, labelled controls reached by the keyboard,
light and dark, no console errors; a foreign Origin is refused. Saves a screenshot of the
first screen.

    Scripts/browser_check.py BIN [ARTIFACTS_DIR]        # the checks; a screenshot in ARTIFACTS_DIR
    Scripts/browser_check.py BIN --first-screen SESSION  # prints the first screen's ms (bench.sh)
"""
import json, os, subprocess, sys, tempfile, time, urllib.error, urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOSTILE = "<img src=x onerror=window.__pwned=1>"
problems = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        problems.append(what)


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def serve(binary, session, *extra):
    server = subprocess.Popen([binary, "serve", "--port", "0", "--quiet", "--session", session, *extra],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return server, server.stdout.readline().strip()


def first_screen(binary, session):
    """Milliseconds from navigation start to the page's first screen (its performance mark)."""
    server, url = serve(binary, session)
    driver = browser()
    try:
        driver.get(url + "/")
        WebDriverWait(driver, 30).until(
            lambda d: d.execute_script("return performance.getEntriesByName('storesim-first-screen').length"))
        print(round(driver.execute_script("return performance.getEntriesByName('storesim-first-screen')[0].startTime")))
    finally:
        driver.quit()
        server.terminate()
        server.wait()


def text(driver, css):
    return driver.find_element(By.CSS_SELECTOR, css).text


def wait_text(driver, css, needle, seconds=10):
    try:
        WebDriverWait(driver, seconds, poll_frequency=0.05,
                      ignored_exceptions=(StaleElementReferenceException, NoSuchElementException)).until(
            lambda d: needle in text(d, css))
        return True
    except Exception:
        return False


def press(driver, by, selector):
    """Clicks the element; again if the page redrew it meanwhile (a change it noticed)."""
    for attempt in range(10):
        try:
            driver.find_element(by, selector).click()
            return
        except (StaleElementReferenceException, NoSuchElementException):
            time.sleep(0.1)
    driver.find_element(by, selector).click()


def click(driver, label):
    press(driver, By.CSS_SELECTOR, f'button[aria-label="{label}"]')


def main():
    binary = os.path.abspath(sys.argv[1])
    if len(sys.argv) > 3 and sys.argv[2] == "--first-screen":
        return first_screen(binary, sys.argv[3])
    artifacts = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
    work = tempfile.mkdtemp()
    session = os.path.join(work, "session.json")

    def cli(*words, customer=None):
        argv = [binary, "--session", session] + (["--customer", customer] if customer else []) + list(words)
        return subprocess.run(argv, check=True, capture_output=True, text=True, cwd=ROOT).stdout

    cli("init", os.path.join(ROOT, "Configurations/AppleSample.storekit"), "--start", "2026-01-01T00:00:00Z")
    cli("buy", "consumable.fuel.octane87")
    cli("buy", "consumable.fuel.octane87", customer=HOSTILE)
    cli("settings", "deliver-url", "http://127.0.0.1:9/notifications")  # nothing listens: each attempt fails
    server, url = serve(binary, session)
    driver = browser()
    try:
        driver.get(url + "/")
        check(wait_text(driver, "#clock", "Now 2026-01-01T00:00:00Z"), "first screen: the clock")
        check("consumable.fuel.octane87" in text(driver, "#transactions"), "first screen: default's transaction")
        check(HOSTILE in text(driver, "#customers"), "first screen: the hostile customer's name, as text")
        check(wait_text(driver, "#notifications", "ONE_TIME_CHARGE"), "first screen: the notifications")
        if artifacts:
            os.makedirs(artifacts, exist_ok=True)
            driver.save_screenshot(os.path.join(artifacts, "page.png"))

        # Another process buys: the page shows it within 2 s, without a reload.
        cli("buy", "subscription.pro")
        began = time.monotonic()
        appeared = wait_text(driver, "#transactions", "subscription.pro", seconds=2)
        check(appeared, f"live: another process's purchase shown in {time.monotonic() - began:.2f} s (at most 2)")

        # Advance: the subscription renews, the renewal appears.
        field = driver.find_element(By.ID, "advance-duration")
        field.clear()
        field.send_keys("2mo")
        press(driver, By.CSS_SELECTOR, "#advance-form button[type=submit]")
        check(wait_text(driver, "#result-text", "subscriptionRenewed"), "Advance: the result names the renewal")
        check(wait_text(driver, "#statuses", "2026-04-01"), "Advance: the status shows the renewed period")
        check("storesim --session" in text(driver, "#result-cli") and "advance 2mo" in text(driver, "#result-cli"),
              "Advance: the equivalent command line")
        check("curl -X POST" in text(driver, "#result-http"), "Advance: the equivalent HTTP call")

        # Ask to Buy on, Buy, then Approve in the request's row.
        press(driver, By.ID, "ask-to-buy")
        check(wait_text(driver, "#result-text", "Ask to Buy on"), "Ask to Buy: turned on from the page")
        WebDriverWait(driver, 5).until(lambda d: d.find_element(By.ID, "ask-to-buy").is_selected())
        press(driver, By.CSS_SELECTOR, "#buy-product option[value='nonconsumable.car']")
        press(driver, By.CSS_SELECTOR, "#buy-form button[type=submit]")
        check(wait_text(driver, "#pending", "askToBuy"), "Buy: an Ask to Buy request waits")
        press(driver, By.XPATH, "//div[@id='pending']//button[text()='Approve']")
        check(wait_text(driver, "#result-text", "purchased"), "Approve: purchased")
        check(wait_text(driver, "#pending", "No Ask to Buy"), "Approve: nothing waits")

        # Refund the car, 40 percent, in its row.
        row = WebDriverWait(driver, 5).until(lambda d: d.find_element(
            By.XPATH, "//div[@id='transactions']//tr[td[2][text()='nonconsumable.car']]"))
        tid = row.get_attribute("data-transaction")
        row.find_element(By.CSS_SELECTOR, "input").send_keys("40")
        click(driver, f"Refund transaction {tid}")
        check(wait_text(driver, "#result-text", "Refund"), "Refund: answered")
        check(wait_text(driver, f"tr[data-transaction='{tid}']", "40%"),
              f"Refund with a percent: 40% revoked ({text(driver, f'tr[data-transaction={chr(39)}{tid}{chr(39)}]')!r}, "
              f"{text(driver, '#result-text')!r}, {text(driver, '#result-cli')!r})")
        check("--percent 40" in text(driver, "#result-cli"), "Refund: the command line says --percent 40")

        # Resend a notification whose delivery failed.
        WebDriverWait(driver, 5).until(lambda d: d.find_elements(By.XPATH, "//div[@id='notifications']//button[text()='Resend']"))
        press(driver, By.XPATH, "//div[@id='notifications']//button[text()='Resend']")
        check(wait_text(driver, "#notifications", "(resend)"), "Resend: the resend is among the attempts")
        if artifacts:  # the store after the actions, the last one's command line and curl at the top
            driver.set_window_size(1280, 1700)
            driver.execute_script("window.scrollTo(0, 0)")
            driver.save_screenshot(os.path.join(artifacts, "page-after-actions.png"))
            driver.set_window_size(1280, 900)

        # The hostile customer: shown as text, nothing ran, no image made.
        press(driver, By.XPATH, f"//div[@id='customers']//button[text()='{HOSTILE}']")
        check(wait_text(driver, "#transactions", f"Transactions of {HOSTILE}"), "hostile name: selected, shown as text")
        check(driver.execute_script("return window.__pwned === undefined"), "hostile name: its script never ran")
        check(not driver.find_elements(By.CSS_SELECTOR, "img[src='x']"), "hostile name: no element made of it")

        # Keyboard and labels: every control has a name; Tab reaches the controls.
        unnamed = driver.execute_script("""
          return [...document.querySelectorAll('input, select, button')].filter((e) =>
            !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.textContent.trim()).length""")
        check(unnamed == 0, f"labelled controls ({unnamed} without a name)")
        driver.execute_script("document.querySelector('header a').focus()")
        reached = set()
        for _ in range(8):
            driver.switch_to.active_element.send_keys(Keys.TAB)
            reached.add(driver.execute_script("return document.activeElement.id || document.activeElement.textContent"))
        check("Buy" in reached and "buy-product" in reached, f"keyboard: Tab reaches the product and Buy ({sorted(reached)})")

        # Light and dark.
        light = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                               {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        dark = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
        check(light == "rgb(255, 255, 255)" and dark == "rgb(28, 28, 30)", f"light and dark: {light} / {dark}")

        # The timeline picture (timeline --svg), drawn on request.
        press(driver, By.ID, "draw-timeline")
        WebDriverWait(driver, 20).until(lambda d: d.execute_script(
            "const i = document.getElementById('timeline'); return i.complete && i.naturalWidth > 0"))
        check(True, "Draw the timeline: the picture loads")

        # A control API session: listed at /sessions/, its own page at /sessions/{id}/.
        configuration = json.load(open(os.path.join(ROOT, "Configurations/AppleSample.storekit")))
        made = urllib.request.Request(url + "/storesim/v1/sessions", method="POST", data=json.dumps(
            {"configuration": configuration, "session": "other", "start": "2027-05-01T00:00:00Z"}).encode())
        urllib.request.urlopen(made).read()
        driver.get(url + "/sessions/")
        press(driver, By.LINK_TEXT, "other")
        check(wait_text(driver, "#clock", "Now 2027-05-01T00:00:00Z"), "session list: another session's own page")
        check(driver.current_url.endswith("/sessions/other/"), f"its address: {driver.current_url}")

        # A page elsewhere: the control API refuses its Origin.
        request = urllib.request.Request(url + "/storesim/v1/sessions/default/buy", method="POST",
                                         data=b'{"arguments": ["consumable.fuel.octane87"]}',
                                         headers={"Origin": "http://evil.example"})
        try:
            urllib.request.urlopen(request)
            check(False, "a foreign Origin is refused")
        except urllib.error.HTTPError as error:
            check(error.code == 403, f"a foreign Origin is refused ({error.code})")

        # serve --no-session: '/' lists the control API's sessions.
        bare, bare_url = serve(binary, session, "--no-session", "--sessions", os.path.join(work, "bare"))
        try:
            made = urllib.request.Request(bare_url + "/storesim/v1/sessions", method="POST", data=json.dumps(
                {"configuration": configuration, "session": "listed"}).encode())
            urllib.request.urlopen(made).read()
            driver.get(bare_url + "/")
            check(wait_text(driver, "#session-list", "listed"), "serve --no-session: '/' lists the sessions")
            errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
            check(not errors, "no console errors" + (f": {errors}" if errors else ""))
        finally:
            bare.terminate()
            bare.wait()
    finally:
        driver.quit()
        server.terminate()
        server.wait()
    print(f"{len(problems)} problem(s)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
