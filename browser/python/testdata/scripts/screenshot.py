import os

from support import check, url
from wright_browser import ActionLog, launch, next_run_dir

PNG = b"\x89PNG\r\n\x1a\n"

with launch(viewport=(800, 600)) as browser:
    page = browser.new_page()
    page.goto(url("counter.html"))
    check(page.evaluate("() => [innerWidth, innerHeight]") == [800, 600], "launch viewport")

    data = page.screenshot(path="shots/deep/page.png")
    path = os.path.join(os.getcwd(), "shots", "deep", "page.png")
    with open(path, "rb") as f:
        on_disk = f.read()
    check(on_disk.startswith(PNG), "a PNG on disk")
    check(data == on_disk, "the returned bytes are the file")
    check(page.screenshot().startswith(PNG), "bytes without a path")
    check(page.screenshot(path="shots/full.png", full_page=True).startswith(PNG), "full page")
    check(page.get_by_role("button", name="Increment").screenshot(path="shots/button.png").startswith(PNG),
          "element screenshot")

    page.set_viewport_size({"width": 640, "height": 480})
    check(page.evaluate("() => innerWidth") == 640, "set_viewport_size")

    run_dir = next_run_dir()
    check(run_dir == os.path.join("final_runs", "run_1"), run_dir)
    log = ActionLog(run_dir)
    log.step(1, "open the counter")
    first = log.screenshot(page, "start page")
    log.step(2, "action: click Increment")
    page.get_by_role("button", name="Increment").click()
    second = log.screenshot(page, "after/click")
    shots = sorted(os.listdir(os.path.join(run_dir, "screenshots")))
    check(shots == ["final_execution_1_start_page.png", "final_execution_2_after_click.png"], shots)
    for shot in (first, second):
        with open(shot, "rb") as f:
            check(f.read(8) == PNG, shot)
    with open(os.path.join(run_dir, "final_script_log.txt")) as f:
        check(f.read() == "step 1 action: open the counter\nstep 2 action: click Increment\n", "log lines")
    check(next_run_dir() == os.path.join("final_runs", "run_2"), "the next run folder")
print("OK")
