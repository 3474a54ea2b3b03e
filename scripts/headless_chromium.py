"""Headless Chromium at a phone's width, through Debian's chromium-driver and python3-selenium, with
a profile of its own (a new browser: no device key, no outbox, nothing cached). The browser scripts
beside this one start their browser here."""
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def start(*flags):
    """A new headless Chromium 375 pixels wide, with `flags` added to its command line."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=375,900", *flags):
        options.add_argument(flag)
    options.add_argument("--user-data-dir=" + tempfile.mkdtemp(prefix="hearclear-browser-"))
    return webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
