#!/usr/bin/python3
"""Searches the public venue search of a running server the way a person does: types NAME into the
form in headless Chromium (through Debian's chromium-driver and python3-selenium) and presses
Search. Prints the address the browser went to, then one line per venue found: its link and name.

    /usr/bin/python3 scripts/browser-form-search.py http://127.0.0.1:PORT "Bloomsbury Cafe"
"""
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

import headless_chromium


def main():
    base, name = sys.argv[1], sys.argv[2]
    driver = headless_chromium.start()
    try:
        driver.get(base + "/venues")
        field = driver.find_element(By.ID, "q")
        field.send_keys(name)
        driver.find_element(By.CSS_SELECTOR, "form.search button[type=submit]").click()
        WebDriverWait(driver, 30).until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "h2, p.problem")))
        print(driver.current_url)
        for link in driver.find_elements(By.CSS_SELECTOR, "ul.results a"):
            print(link.get_attribute("href"), link.text)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
