import json, os
from wright_browser import launch

task = json.load(open(os.environ["TASK_JSON"]))
with launch() as browser:
    page = browser.new_page()
    page.goto(task["start_url"])
    print("title:", page.title())
    print(page.aria_snapshot())
    page.screenshot(path="screenshots/explore_home.png")
