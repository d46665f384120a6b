# The five-line script the warm-browser measure times (run/harness,
# BenchmarkWarmLaunch): launch, new page, goto, title, close.
import sys
from playwright.sync_api import sync_playwright

with sync_playwright() as p:
    browser = p.chromium.launch()
    page = browser.new_page()
    page.goto(sys.argv[1])
    print(page.title())
    browser.close()
