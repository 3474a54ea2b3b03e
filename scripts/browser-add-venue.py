#!/usr/bin/python3
"""Adds a venue the way a person with a phone does, in headless Chromium (Debian's chromium-driver
and python3-selenium): opens the search for NAME near PLACE, follows "Not listed? Add it", picks
KIND and taps "Add and measure". Prints where that led, one line:

    measure URL        the venue was added and its measuring page opened
    matches LINK ...   venues of that name near the place were offered instead (each link's
                       address and words, separated by " | "); with --anyway, "Add mine anyway"
                       is then tapped and the next line says where that led
    status TEXT        the page said why not

    /usr/bin/python3 scripts/browser-add-venue.py [--anyway] http://127.0.0.1:PORT NAME PLACE KIND

The browser's time zone is the TZ of the environment, as a phone's is its own.
"""
import sys

from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

import headless_chromium


def outcome(driver, offered=False):
    """Where the last tap led: the measuring page, venues offered, or the page's words. `offered`:
    the venues were offered before this tap ("Add mine anyway"), and their list stays on the page
    until the measuring page opens, so it is no answer to this tap."""
    def settled(driver):
        if driver.current_url.endswith("/measure"):
            return "measure " + driver.current_url
        # The page never offers an empty list; one read as the page is left is not an answer.
        links = driver.find_elements(By.CSS_SELECTOR, "#match-list a")
        if links and not offered and driver.find_element(By.ID, "matches").is_displayed():
            return "matches " + " | ".join(link.get_attribute("href") + " " + link.text for link in links)
        status = driver.find_element(By.ID, "status").text
        return "status " + status if status.startswith("Not added") or status.startswith("Type") else None
    # The page may be going to the measuring page while it is read.
    return WebDriverWait(driver, 60, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)).until(settled)


def main():
    arguments = [argument for argument in sys.argv[1:] if argument != "--anyway"]
    anyway = len(arguments) < len(sys.argv) - 1
    base, name, place, kind = arguments
    driver = headless_chromium.start()
    try:
        driver.get(base + "/venues")
        driver.find_element(By.ID, "q").send_keys(name)
        driver.find_element(By.ID, "near").send_keys(place)
        driver.find_element(By.CSS_SELECTOR, "form.search button[type=submit]").click()
        WebDriverWait(driver, 30).until(lambda driver: driver.find_elements(By.PARTIAL_LINK_TEXT, "Not listed?"))
        driver.find_element(By.PARTIAL_LINK_TEXT, "Not listed?").click()
        # The form shows once its script runs.
        WebDriverWait(driver, 30).until(lambda driver: driver.find_element(By.ID, "add-venue").is_displayed())
        Select(driver.find_element(By.ID, "kind")).select_by_value(kind)
        driver.find_element(By.CSS_SELECTOR, "#add-venue button[type=submit]").click()
        said = outcome(driver)
        print(said, flush=True)
        if anyway and said.startswith("matches"):
            driver.find_element(By.ID, "add-anyway").click()
            print(outcome(driver, offered=True), flush=True)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
