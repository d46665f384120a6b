cat > explore_2.py <<'EOF'
import json, os
from wright_browser import launch

task = json.load(open(os.environ["TASK_JSON"]))
with launch() as browser:
    page = browser.new_page()
    page.goto(task["start_url"])
    page.get_by_label("Search books").fill("Go Programming")
    page.get_by_role("button", name="Search").click()
    page.locator("#results li").first.wait_for()
    print("url:", page.url)
    print(page.locator("#results li").all_inner_texts())
EOF
python3 explore_2.py
