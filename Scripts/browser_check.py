#!/usr/bin/env python3
"""The Transaction Manager page of `storesim serve` in a real browser (issue 48, docs/page.md).

Drives Debian's chromium through chromium-driver with Selenium (PyPI), headless:
the first screen, a purchase made by another process (`storesim buy`) appearing within 2 s;
every action of issue 48 item 2 clicked as the button its text names, in its row: Buy, Approve
and Decline (Ask to Buy), Refund with a percent, Cancel and Resume, Renew, Fail billing then
Advance (billing retry) and Resolve, Bill normally, Advance to the next event, Expire, Resend,
each with its effect on the page (and in `storesim status` where it changes the store) and its
exact "Command line:" and "HTTP:" lines; a customer named as markup shown as text and run as
nothing, labelled controls reached by the keyboard, light and dark, no console errors; a
foreign Origin is refused. Saves a screenshot of the first screen.

    Scripts/browser_check.py BIN [ARTIFACTS_DIR]        # the checks; a screenshot in ARTIFACTS_DIR
    Scripts/browser_check.py BIN --first-screen SESSION  # prints the first screen's ms (bench.sh)
"""
import json, os, subprocess, sys, tempfile, time, urllib.error, urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
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


def wait_for(driver, predicate, seconds=10):
    """True once predicate(driver) holds (the page redraws meanwhile), False after `seconds`."""
    try:
        WebDriverWait(driver, seconds, poll_frequency=0.05,
                      ignored_exceptions=(StaleElementReferenceException, NoSuchElementException)).until(predicate)
        return True
    except TimeoutException:
        return False


def text_xpath(driver, xpath):
    try:
        return driver.find_element(By.XPATH, xpath).text
    except (StaleElementReferenceException, NoSuchElementException):
        return ""


def wait_xpath(driver, xpath, expected=None, exact=True, seconds=10):
    """True once the element at xpath is there (and its text is `expected`, or holds it)."""
    def there(d):
        found = d.find_elements(By.XPATH, xpath)
        if not found:
            return False
        if expected is None:
            return True
        shown = found[0].text.strip()
        return shown == expected if exact else expected in shown
    return wait_for(driver, there, seconds)


def named(driver, row, name, label):
    """Clicks the button whose visible text is `name` in `row` (an XPath), its aria-label `label`;
    False if the row has no such button within 5 s."""
    xpath = f"{row}//button[normalize-space(.)='{name}' and @aria-label='{label}']" if label != name \
        else f"{row}//button[normalize-space(.)='{name}']"
    if not wait_for(driver, lambda d: d.find_elements(By.XPATH, xpath), 5):
        return False
    press(driver, By.XPATH, xpath)
    return True


def done(driver, label, seconds=10):
    """The page's answer to the action it calls `label` once it came ('' if it did not, or was refused)."""
    def answered(d):
        result = d.find_element(By.ID, "result-text")
        return result.text.startswith(label + ": ") and result.get_attribute("class") in ("ok", "bad")
    if not wait_for(driver, answered, seconds):
        return ""
    result = driver.find_element(By.ID, "result-text")
    return result.text if result.get_attribute("class") == "ok" else ""


def shown(driver, session, url, what, tail, command, body):
    """The page shows the last action's command line and its HTTP call, each exactly."""
    lines = [line.strip() for line in text(driver, "#result").splitlines()]
    cli_line = f"Command line: storesim --session {session} {tail}"
    http_line = (f"HTTP: curl -X POST {url}/storesim/v1/sessions/default/{command} "
                 f"-d '{json.dumps(body, separators=(',', ':'))}'")
    check(cli_line in lines, f"{what}: {cli_line}" + ("" if cli_line in lines else f" (shown: {lines})"))
    check(http_line in lines, f"{what}: {http_line}" + ("" if http_line in lines else f" (shown: {lines})"))


def pending_request(driver, product):
    """The id of the Ask to Buy request waiting for `product` ('' if none within 10 s)."""
    row = f"//div[@id='pending']//tr[td[2]='askToBuy'][starts-with(td[3], '{product}')]"
    return text_xpath(driver, row + "/td[1]") if wait_xpath(driver, row) else ""


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
        check(named(driver, "//form[@id='advance-form']", "Advance", "Advance"), "Advance: the button 'Advance' in the store's controls")
        check("subscriptionRenewed" in done(driver, "Advance 2mo"), "Advance: the result names the renewal")
        check(wait_text(driver, "#statuses", "2026-04-01"), "Advance: the status shows the renewed period")
        shown(driver, session, url, "Advance", "advance 2mo", "advance", {"arguments": ["2mo"]})

        # Ask to Buy on, Buy, then Approve in the request's row.
        press(driver, By.ID, "ask-to-buy")
        check(wait_text(driver, "#result-text", "Ask to Buy on"), "Ask to Buy: turned on from the page")
        shown(driver, session, url, "Ask to Buy on", "settings ask-to-buy on", "settings", {"arguments": ["ask-to-buy", "on"]})
        WebDriverWait(driver, 5).until(lambda d: d.find_element(By.ID, "ask-to-buy").is_selected())
        press(driver, By.CSS_SELECTOR, "#buy-product option[value='nonconsumable.car']")
        check(named(driver, "//form[@id='buy-form']", "Buy", "Buy"), "Buy: the button 'Buy' in the store's controls")
        answer = done(driver, "Buy nonconsumable.car")
        check("pending" in answer, f"Buy: the answer says pending ({answer!r})")
        check(wait_text(driver, "#pending", "askToBuy"), "Buy: an Ask to Buy request waits")
        shown(driver, session, url, "Buy", "--customer default buy nonconsumable.car", "buy",
              {"arguments": ["nonconsumable.car"], "customer": "default"})
        request = pending_request(driver, "nonconsumable.car")
        check(named(driver, f"//div[@id='pending']//tr[td[1]='{request}']", "Approve", f"Approve request {request}"),
              f"Approve: the button 'Approve' in request {request}'s row")
        check("purchased" in done(driver, f"Approve {request}"), "Approve: purchased")
        check(wait_text(driver, "#pending", "No Ask to Buy"), "Approve: nothing waits")
        check(wait_xpath(driver, "//div[@id='transactions']//tr[td[2]='nonconsumable.car']"),
              "Approve: the car is among the transactions")
        shown(driver, session, url, "Approve", f"--customer default approve {request}", "approve",
              {"arguments": [request], "customer": "default"})

        # Buy again, then Decline in the request's row: the request goes, nothing is bought.
        press(driver, By.CSS_SELECTOR, "#buy-product option[value='nonconsumable.racecar']")
        named(driver, "//form[@id='buy-form']", "Buy", "Buy")
        check("pending" in done(driver, "Buy nonconsumable.racecar"), "Buy: a second request")
        request = pending_request(driver, "nonconsumable.racecar")
        check(named(driver, f"//div[@id='pending']//tr[td[1]='{request}']", "Decline", f"Decline request {request}"),
              f"Decline: the button 'Decline' in request {request}'s row")
        answer = done(driver, f"Decline {request}")
        check("declined" in answer, f"Decline: the result says declined ({answer!r})")
        check(wait_text(driver, "#pending", "No Ask to Buy"), "Decline: the request no longer waits")
        check("nonconsumable.racecar" not in text(driver, "#transactions"), "Decline: no racecar was bought")
        shown(driver, session, url, "Decline", f"--customer default decline {request}", "decline",
              {"arguments": [request], "customer": "default"})
        press(driver, By.ID, "ask-to-buy")
        check(done(driver, "Ask to Buy off") != "", "Ask to Buy: turned off from the page")
        shown(driver, session, url, "Ask to Buy off", "settings ask-to-buy off", "settings", {"arguments": ["ask-to-buy", "off"]})

        # Refund the car, 40 percent, in its row.
        row = WebDriverWait(driver, 5).until(lambda d: d.find_element(
            By.XPATH, "//div[@id='transactions']//tr[td[2][text()='nonconsumable.car']]"))
        tid = row.get_attribute("data-transaction")
        row.find_element(By.CSS_SELECTOR, "input").send_keys("40")
        check(named(driver, f"//div[@id='transactions']//tr[@data-transaction='{tid}']", "Refund", f"Refund transaction {tid}"),
              f"Refund: the button 'Refund' in transaction {tid}'s row")
        check(done(driver, f"Refund {tid} (40%)") != "", "Refund: answered")
        check(wait_text(driver, f"tr[data-transaction='{tid}']", "40%"),
              f"Refund with a percent: 40% revoked ({text(driver, f'tr[data-transaction={chr(39)}{tid}{chr(39)}]')!r}, "
              f"{text(driver, '#result-text')!r}, {text(driver, '#result-cli')!r})")
        shown(driver, session, url, "Refund", f"--customer default refund {tid} --percent 40", "refund",
              {"arguments": [tid], "customer": "default", "percent": "40"})

        # The subscription's actions, each in its current transaction's row; the store
        # (storesim status, another process) agrees with the page.
        def status():
            return json.loads(cli("status", "--json"))[0]

        def sub_row():
            return f"//div[@id='transactions']//tr[@data-transaction='{status()['transaction']['transactionId']}']"

        def row_action(action, result, names, where="", label="{action} the subscription of transaction {acted}"):
            """Clicks ACTION (its accessible name LABEL) in the subscription's row and checks that the
            answer names RESULT; returns the id of the transaction it acted on."""
            acted = status()["transaction"]["transactionId"]
            check(named(driver, sub_row(), action, label.format(action=action, acted=acted)),
                  f"{action}: the button '{action}' in transaction {acted}'s row{where}")
            answer = done(driver, f"{action} subscription.pro")
            check(result in answer, f"{action}: the result names {names} ({answer!r})")
            return acted

        def row_action_shown(action, acted):
            """The command line and HTTP call the page shows for ACTION on transaction ACTED."""
            command = action.lower()
            shown(driver, session, url, action, f"--customer default {command} --transaction {acted}", command,
                  {"transaction": acted, "customer": "default"})

        cell = "//div[@id='statuses']//tbody/tr[td[3]='subscription.pro']/td[{}]"  # 2 state, 4 expires, 5 auto-renew, 6 notes
        # Cancel, then Resume in its place: auto-renew off, then on, on the page and in the store.
        for action, where, shows, stored in (("Cancel", "", "off", 0), ("Resume", " (in place of Cancel)", "on", 1)):
            tid = row_action(action, "autoRenewStatusChanged", "the change", where)
            check(wait_xpath(driver, cell.format(5), shows), f"{action}: the status shows auto-renew {shows}")
            check(status()["renewalInfo"]["autoRenewStatus"] == stored, f"{action}: the store has auto-renew {shows}")
            row_action_shown(action, tid)

        tid = row_action("Renew", "subscriptionRenewed", "the renewal")
        renewed = status()["transaction"]["transactionId"]
        check(renewed != tid and wait_xpath(driver, f"//div[@id='transactions']//tr[@data-transaction='{renewed}']"),
              f"Renew: the renewal {renewed} is among the transactions")
        row_action_shown("Renew", tid)

        # Fail billing, then Advance: the renewal fails into billing retry; Resolve clears it.
        check(named(driver, "//section[@aria-labelledby='store-heading']", "Fail billing", "Fail billing"),
              "Fail billing: the button 'Fail billing' in the store's controls")
        check(done(driver, "Fail billing") != "", "Fail billing: answered")
        check(wait_xpath(driver, "//button[@id='billing']", "Bill normally"), "Fail billing: the button now says Bill normally")
        shown(driver, session, url, "Fail billing", "settings billing-retry on", "settings", {"arguments": ["billing-retry", "on"]})
        field = driver.find_element(By.ID, "advance-duration")
        field.clear()
        field.send_keys("40d")
        named(driver, "//form[@id='advance-form']", "Advance", "Advance")
        answer = done(driver, "Advance 40d")
        check("renewalFailed" in answer, f"Fail billing, Advance: the renewal failed ({answer!r})")
        check(wait_xpath(driver, cell.format(2), "inBillingRetryPeriod"), "Fail billing, Advance: the status shows billing retry")
        check(wait_xpath(driver, cell.format(6), "in billing retry", exact=False), "Fail billing, Advance: the renewal info says in billing retry")
        shown(driver, session, url, "Advance", "advance 40d", "advance", {"arguments": ["40d"]})
        tid = row_action("Resolve", "subscriptionRenewed", "the renewal",
                         label="Resolve the billing issue of transaction {acted}")
        check(wait_xpath(driver, cell.format(2), "subscribed"), "Resolve: the status is subscribed again")
        check("in billing retry" not in text_xpath(driver, cell.format(6)), "Resolve: billing retry cleared")
        check(not status()["renewalInfo"]["isInBillingRetryPeriod"], "Resolve: the store is out of billing retry")
        row_action_shown("Resolve", tid)
        check(named(driver, "//section[@aria-labelledby='store-heading']", "Bill normally", "Bill normally"),
              "Bill normally: the button in the store's controls")
        check(done(driver, "Bill normally") != "", "Bill normally: answered")
        check(wait_xpath(driver, "//button[@id='billing']", "Fail billing"), "Bill normally: the button says Fail billing again")
        shown(driver, session, url, "Bill normally", "settings billing-retry off", "settings", {"arguments": ["billing-retry", "off"]})

        # Advance to the next event: the clock moves forward to it.
        before = text(driver, "#clock")
        check(named(driver, "//form[@id='advance-form']", "Advance to the next event", "Advance to the next event"),
              "Advance to the next event: the button in the store's controls")
        check(done(driver, "Advance to the next event") != "", "Advance to the next event: answered")
        moved = wait_for(driver, lambda d: text(d, "#clock") != before)
        check(moved and text(driver, "#clock")[4:24] > before[4:24],
              f"Advance to the next event: the clock moved ({before[:24]} to {text(driver, '#clock')[:24]})")
        shown(driver, session, url, "Advance to the next event", "advance --next", "advance", {"next": True})

        # Expire: the subscription ends now; its row has no subscription actions left.
        tid = row_action("Expire", "subscriptionExpired", "the expiry")
        check(wait_xpath(driver, cell.format(2), "expired"), "Expire: the status shows expired")
        check(status()["state"] == "expired", "Expire: the store has it expired")
        check(wait_xpath(driver, cell.format(6), "ended ", exact=False)
              and "renews" not in driver.find_element(By.XPATH, cell.format(6)).text,
              "Expire: the renewal info says ended, not renews")
        check(wait_for(driver, lambda d: not d.find_elements(By.XPATH, f"//tr[@data-transaction='{tid}']//button[.='Expire']")),
              "Expire: no Expire button left in its row")
        row_action_shown("Expire", tid)

        # Resend a notification whose delivery failed, in its row.
        resend = "//div[@id='notifications']//tr[.//button[.='Resend']]"
        WebDriverWait(driver, 5).until(lambda d: d.find_elements(By.XPATH, resend))
        index = driver.find_element(By.XPATH, resend + "/td[1]").text
        check(named(driver, f"//div[@id='notifications']//tr[td[1]='{index}']", "Resend", f"Resend notification {index}"),
              f"Resend: the button 'Resend' in notification {index}'s row")
        check(done(driver, f"Resend notification {index} (and later failed ones)") != "", "Resend: answered")
        check(wait_text(driver, "#notifications", "(resend)"), "Resend: the resend is among the attempts")
        shown(driver, session, url, "Resend", f"notifications deliver --retry --since {index}", "notifications",
              {"arguments": ["deliver"], "retry": True, "since": index})
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
