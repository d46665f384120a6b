#!/bin/sh
# Regenerates the fixture runs under runs/ from real scripted runs: the real
# binary, shell, Chromium and gate, with recorded replies (replay:) standing
# in for the model. Run from the repository root:
#
#   go build -o bin/wright ./cmd/wright && sh review/testdata/make_fixtures.sh
#
# The machine's paths are replaced by /home/user/wright-runs afterwards, so
# the fixtures name no real directory.
set -eu
BIN=${BIN:-$PWD/bin/wright}
OUT=review/testdata/runs
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
rm -rf "$OUT" && mkdir -p "$OUT"

run() { # name, then wright run arguments
	name=$1; shift
	"$BIN" run --run-dir "$WORK/$name" "$@" >/dev/null 2>&1 || true
}

# finished: the bundled demo (explores, writes final_script.py, judged, Submitted).
"$BIN" demo -o "$WORK/demo" >/dev/null 2>&1
mv "$WORK"/demo/demo_bookshop_* "$WORK/finished"

# gate_refused: done before any final run is refused, a format error, then the step limit.
cat > "$WORK/refused.jsonl" <<'J'
{"thought": "Look around the workspace first.", "bash_command": "echo hello; ls", "done": false, "final_response": ""}
{"thought": "Print the greeting to a file.", "bash_command": "echo hello > greeting.txt && cat greeting.txt", "done": false, "final_response": ""}
{"thought": "I said hello, so I am **done**.", "bash_command": "", "done": true, "final_response": "hello"}
"I think I will just say hello without JSON this time."
J
run gate_refused -t "Say hello" --start-url http://127.0.0.1:9/ --task-id say_hello --model "replay:$WORK/refused.jsonl" --step-limit 4

# compacted: the history is summarised every 2 model calls.
cat > "$WORK/compacted.jsonl" <<'J'
{"thought": "Count the files.", "bash_command": "ls | wc -l", "done": false, "final_response": ""}
{"thought": "Make a note.", "bash_command": "echo note > note.txt", "done": false, "final_response": ""}
"Summary: the workspace was listed and note.txt was written."
{"thought": "Check the note.", "bash_command": "cat note.txt", "done": false, "final_response": ""}
{"thought": "Add a second line.", "bash_command": "echo more >> note.txt; wc -l note.txt", "done": false, "final_response": ""}
"Summary: note.txt holds two lines."
{"thought": "The note is written.", "bash_command": "", "done": true, "final_response": "note.txt has 2 lines"}
J
run compacted -t "Write a note" --start-url http://127.0.0.1:9/ --task-id write_note --model "replay:$WORK/compacted.jsonl" \
	-c agent.summary_every_n_steps=2 -c agent.require_self_reflection_success=false

# crashed: the process is killed in the middle of step 2.
cat > "$WORK/crashed.jsonl" <<'J'
{"thought": "Start with a quick look.", "bash_command": "echo started", "done": false, "final_response": ""}
{"thought": "Now a long job.", "bash_command": "sleep 6; echo finished", "done": false, "final_response": ""}
J
"$BIN" run --run-dir "$WORK/crashed" -t "Run a long job" --start-url http://127.0.0.1:9/ --task-id long_job \
	--model "replay:$WORK/crashed.jsonl" >/dev/null 2>&1 &
pid=$!
while [ ! -f "$WORK/crashed/workspace/logs/step_0002.log" ] && [ ! -f "$WORK/crashed/workspace/steps/step_0002.sh" ]; do sleep 0.2; done
sleep 1
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
sleep 6 # the orphaned step ends on its own

# live: browser mode on the demo shop's pages, a screenshot per step.
mkdir -p "$WORK/site" && cp demo/site/* "$WORK/site/"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$WORK/site" >/dev/null 2>&1 &
web=$!
sleep 1
cat > "$WORK/live.jsonl" <<'J'
{"thought": "Search for the book.", "python_code": "page.get_by_label(\"Search books\").fill(\"Go Programming\")\npage.get_by_role(\"button\", name=\"Search\").click()\npage.locator(\"#results li\").first.wait_for()\nprint(page.locator(\"#results li\").first.inner_text())", "done": false, "final_response": ""}
{"thought": "A selector that matches nothing, to see the error.", "python_code": "page.locator(\"#nope\").click(timeout=500)", "done": false, "final_response": ""}
{"thought": "Open the book page.", "python_code": "page.get_by_role(\"link\", name=\"The Go Programming Language\").click()\nprint(page.title())", "done": false, "final_response": ""}
{"thought": "The price is on screen.", "python_code": "", "done": true, "final_response": "$39.99"}
J
run live --mode browser -t "Find the price of The Go Programming Language" --start-url "http://127.0.0.1:$port/" \
	--task-id live_price --model "replay:$WORK/live.jsonl"
kill "$web"

for d in finished gate_refused compacted crashed live; do
	rm -rf "$WORK/$d/lib" "$WORK/$d/workspace/tmp"
	find "$WORK/$d" -type f \( -name '*.json' -o -name '*.jsonl' -o -name '*.md' -o -name '*.yaml' -o -name '*.txt' -o -name '*.log' -o -name '*.py' -o -name '*.sh' \) \
		-exec sed -i "s#$WORK#/home/user/wright-runs#g; s#$PWD#/home/user/wright#g; s#/tmp/wright-demo-[0-9]*#/home/user/replays#g" {} +
	cp -r "$WORK/$d" "$OUT/$d"
done
du -sh "$OUT"
