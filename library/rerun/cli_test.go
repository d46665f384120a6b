package rerun_test

// These tests drive the wright binary end to end (run --save-as, rerun,
// heal, scripts, bench --library) against a shop served in two versions.
// They live here, not in cmd/wright, so that package's tests keep their
// own time budget.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"wright/bench"
	"wright/bench/results"
	"wright/library"
	"wright/model"
	"wright/model/modeltest"
)

// wrightBin is the binary under test, built once for the package.
var wrightBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wright-bin-")
	if err != nil {
		panic(err)
	}
	wrightBin = filepath.Join(dir, "wright")
	out, err := exec.Command("go", "build", "-o", wrightBin, "wright/cmd/wright").CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		panic("build wright: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type cliRun struct {
	stdout, stderr bytes.Buffer
	code           int
}

// wright runs the binary with a test key in its environment (the stand-in
// models on 127.0.0.1 need none; a real endpoint would get this one).
func wright(t *testing.T, args ...string) *cliRun {
	t.Helper()
	cmd := exec.Command(wrightBin, args...)
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=sk-wright-test-0123456789abcdef")
	cmd.Dir = t.TempDir()
	r := &cliRun{}
	cmd.Stdout, cmd.Stderr = &r.stdout, &r.stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

func readResults(t *testing.T, dir string) map[string]bench.Record {
	t.Helper()
	recs, skipped, err := results.Read(filepath.Join(dir, bench.ResultsFile))
	if err != nil || skipped > 0 {
		t.Fatalf("results: %v (%d unreadable)", err, skipped)
	}
	out := map[string]bench.Record{}
	for _, r := range results.Latest(recs) {
		out[r.TaskID] = r
	}
	return out
}

// checkRow is what a row of `wright scripts check --json` says.
type checkRow struct {
	State  string `json:"state"`
	Reason string `json:"reason"`
}

// The scripts tests run a shop in two versions: v2 renames the search
// button, moves the field into a dialog, puts a cookie banner over the page
// and serves results on another path.

var shopPrices = map[string]string{"Office chair": "120.5", "Desk lamp": "35", "Standing desk": "399.99", "Monitor arm": "89"}

const shopV1 = `<!doctype html><html><body><h1>Acme</h1>
<form action="/search"><label>Product <input name="q"></label><button type="submit">Find</button></form></body></html>`

const shopV2 = `<!doctype html><html><body><h1>Acme</h1>
<div id="cookies" style="position:fixed;inset:0;background:rgba(0,0,0,.6);z-index:10"><button onclick="document.getElementById('cookies').remove()">Accept cookies</button></div>
<button onclick="document.getElementById('d').showModal()">Open search</button>
<dialog id="d"><form action="/lookup"><label>Product <input name="q"></label><button type="submit">Search now</button></form></dialog></body></html>`

// shopSite serves the shop; version picks v1 or v2 as the test goes.
func shopSite(t *testing.T, version *atomic.Int32) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v2 := version.Load() == 2
		resultPath := "/search"
		if v2 {
			resultPath = "/lookup"
		}
		switch r.URL.Path {
		case "/":
			page := shopV1
			if v2 {
				page = shopV2
			}
			fmt.Fprint(w, page)
		case resultPath:
			q := r.URL.Query().Get("q")
			price, ok := shopPrices[q]
			if !ok {
				fmt.Fprint(w, `<!doctype html><h1>No such product</h1>`)
				return
			}
			fmt.Fprintf(w, `<!doctype html><h1 id="name">%s</h1><p>Price: <span id="price">%s</span></p>`, q, price)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

const shopSchema = `{"type": "object", "properties": {"item": {"type": "string"}, "price": {"type": "number"}}, "required": ["item", "price"], "additionalProperties": false}`

// shopScript is the crafted tool; steps are the page actions before the
// results load, priceExpr how the price is read, option the input's flag.
func shopScript(steps, priceExpr, option string) string {
	return `"""Look up a product's price on the Acme shop."""
import argparse, json, os
from playwright.sync_api import sync_playwright


def run(item: str = "Office chair") -> dict:
    run_dir = os.environ.get("WRIGHT_RUN_DIR", "out")
    os.makedirs(os.path.join(run_dir, "screenshots"), exist_ok=True)
    with open(os.environ["TASK_JSON"]) as f:
        start = json.load(f)["start_url"]
    with sync_playwright() as p:
        browser = p.chromium.launch()
        page = browser.new_page()
        page.set_default_timeout(5000)
        page.goto(start)
` + steps + `        page.locator("#price").wait_for()
        page.screenshot(path=os.path.join(run_dir, "screenshots", "final_execution_1_price.png"))
        result = {"item": page.locator("#name").inner_text(), "price": ` + priceExpr + `}
        browser.close()
    with open(os.path.join(run_dir, "final_script_log.txt"), "a") as f:
        f.write("step 1 action: looked up %s: %s\n" % (item, json.dumps(result)))
    return result


def main():
    ap = argparse.ArgumentParser(description="Look up a product's price. Returns item and price.")
    ap.add_argument("` + option + `", dest="item", default="Office chair", help="the product to look up")
    args = ap.parse_args()
    result = run(args.item)
    with open(os.path.join(os.environ.get("WRIGHT_RUN_DIR", "out"), "result.json"), "w") as f:
        json.dump(result, f)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
`
}

const (
	v1Steps = `        page.get_by_label("Product").fill(item)
        page.get_by_role("button", name="Find").click()
`
	v2Steps = `        page.get_by_role("button", name="Accept cookies").click()
        page.get_by_role("button", name="Open search").click()
        page.get_by_label("Product").fill(item)
        page.get_by_role("button", name="Search now").click()
`
	goodPrice = `float(page.locator("#price").inner_text())`
)

var (
	judgeTaskItem   = regexp.MustCompile(`price of \\?"([^"\\]+)\\?"`) // task.json quotes it as \"
	judgeResultItem = regexp.MustCompile(`"item": "([^"]+)"`)
)

// shopJudge is the scripted judge: stage 1 scores every screenshot 5; the
// verdict is success only when the result names the item the task asks
// about, as a judge comparing the task with the final screenshot would.
func shopJudge(t *testing.T) *modeltest.Server {
	return modeltest.New(t, modeltest.Func(func(r modeltest.Request) modeltest.Response {
		msgs := r.Chat().Messages
		text := msgs[len(msgs)-1].Text()
		if !strings.Contains(text, "----- result start -----") {
			return modeltest.Reply("Score: 5\nReasoning: the page shows a product and its price.").WithUsage(100, 10)
		}
		task, res := judgeTaskItem.FindStringSubmatch(text), judgeResultItem.FindStringSubmatch(text)
		if task != nil && res != nil && task[1] == res[1] {
			return modeltest.Reply("The result matches the product page.\nStatus: success").WithUsage(200, 20)
		}
		return modeltest.Reply("The result names another product than the task asks about.\nStatus: failure").WithUsage(200, 20)
	}).Forever())
}

// agentWriting is a scripted agent that writes script as final_script.py
// and says done with answer.
func agentWriting(t *testing.T, script, answer string) *modeltest.Server {
	return modeltest.New(t,
		modeltest.Bash("write the tool", "cat > final_script.py <<'EOF'\n"+script+"EOF\npython3 final_script.py --help >/dev/null && echo ok"),
		modeltest.Done(model.FieldBash, "the gate reruns it", answer))
}

type shopEnv struct {
	t       *testing.T
	version atomic.Int32
	site    string
	judge   *modeltest.Server
	lib     string
	schema  string
}

func newShopEnv(t *testing.T) *shopEnv {
	e := &shopEnv{t: t}
	e.version.Store(1)
	e.site = shopSite(t, &e.version)
	e.judge = shopJudge(t)
	e.lib = filepath.Join(t.TempDir(), "library")
	e.schema = filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(e.schema, []byte(shopSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	return e
}

// common are the flags every command of the test shares: the judge, the
// rerun gate, a lean retry.
func (e *shopEnv) common() []string {
	return []string{"-c", "gate.model={name: judge, base_url: " + strconv.Quote(e.judge.URL+"/v1") + "}",
		"-c", "gate.mode=rerun", "-c", "model.retry={attempts: 2, initial_delay_seconds: 0.01, max_delay_seconds: 0.02}"}
}

func (e *shopEnv) rerun(args ...string) *cliRun {
	return wright(e.t, append(append([]string{"rerun", "--library", e.lib, "--json"}, args...), e.common()...)...)
}

func decodeReport(t *testing.T, r *cliRun) map[string]any {
	t.Helper()
	var rep map[string]any
	if err := json.Unmarshal(r.stdout.Bytes(), &rep); err != nil {
		t.Fatalf("rerun --json: %v\nstdout: %s\nstderr: %s", err, r.stdout.String(), r.stderr.String())
	}
	return rep
}

func TestScriptLifecycle(t *testing.T) {
	t.Parallel()
	e := newShopEnv(t)
	task := `On the Acme shop, find the price of "Office chair" and report it.`

	// 1. A run on v1 saves the crafted tool.
	agent := agentWriting(t, shopScript(v1Steps, goodPrice, "--item"), `{"item": "Office chair", "price": 120.5}`)
	runDir := filepath.Join(t.TempDir(), "run")
	r := wright(t, append([]string{"run", "-t", task, "--start-url", e.site, "--run-dir", runDir, "--base-url", agent.URL + "/v1",
		"--model", "scripted", "-c", "crafted_cli", "--output-schema", e.schema, "--save-as", "price", "--library", e.lib}, e.common()...)...)
	if r.code != 0 {
		steps, _ := os.ReadFile(filepath.Join(runDir, "debug", "steps.md"))
		t.Fatalf("run --save-as: exit %d\n%s\n%s", r.code, r.stderr.String(), steps)
	}
	lib, err := library.Open(e.lib)
	if err != nil {
		t.Fatal(err)
	}
	v1, err := lib.Latest("price")
	if err != nil {
		t.Fatal(err)
	}
	if v1.Version.Version != 1 || v1.Template != `On the Acme shop, find the price of "{item}" and report it.` || !v1.HasSchema || !v1.Crafted {
		t.Fatalf("saved version: %+v", v1.Version)
	}
	if len(v1.Interface.Params) != 1 || v1.Interface.Params[0].Name != "item" || v1.Interface.Params[0].Type != "str" || v1.Interface.Params[0].Flag != "--item" {
		t.Fatalf("interface: %+v", v1.Interface.Params)
	}
	for _, f := range []string{"final_script.py", "version.json", "output_schema.json", "verified/screenshots/final_execution_1_price.png", "verified/self_reflect_result.json"} {
		if _, err := os.Stat(filepath.Join(v1.Dir, f)); err != nil {
			t.Errorf("v1 lacks %s: %v", f, err)
		}
	}

	// 2. Usage errors exit 2 before anything runs.
	judgeCalls := e.judge.Calls()
	for _, bad := range [][]string{{"--param", "colour=red"}, {"--param", "item"}, {"--verify", "maybe"}} {
		if r := e.rerun(append([]string{"price"}, bad...)...); r.code != 2 {
			t.Errorf("rerun %v: exit %d, want 2\n%s", bad, r.code, r.stderr.String())
		}
	}
	if r := e.rerun("nosuch"); r.code != 2 {
		t.Errorf("rerun of an unknown script: exit %d", r.code)
	}
	if e.judge.Calls() != judgeCalls {
		t.Errorf("a usage error reached the judge")
	}
	if n, _ := os.ReadDir(filepath.Join(v1.Dir, "..", library.RerunsDir)); len(n) != 0 {
		t.Errorf("a usage error made a rerun folder: %v", n)
	}

	// 3. Three inputs on v1, each verified with judge calls only.
	for item, price := range map[string]float64{"Desk lamp": 35, "Standing desk": 399.99, "Monitor arm": 89} {
		before := e.judge.Calls()
		r := e.rerun("price", "--param", "item="+item)
		rep := decodeReport(t, r)
		if r.code != 0 || rep["verified"] != true {
			t.Fatalf("rerun item=%s: exit %d %v\n%s", item, r.code, rep, r.stderr.String())
		}
		out, _ := rep["output"].(map[string]any)
		if out["item"] != item || out["price"] != price {
			t.Errorf("rerun item=%s answered %v", item, out)
		}
		if got := int(rep["model_calls"].(float64)); got != 2 || e.judge.Calls()-before != 2 {
			t.Errorf("rerun item=%s: %d model calls reported, %d made; want 2 (the judge's)", item, got, e.judge.Calls()-before)
		}
		if !strings.Contains(rep["task"].(string), `"`+item+`"`) {
			t.Errorf("the judge's task was not filled: %s", rep["task"])
		}
	}

	// 4. v2: the rerun fails and says so, and (5) a heal that changes the
	// interface is refused; nothing is saved.
	e.version.Store(2)
	renamer := agentWriting(t, shopScript(v2Steps, goodPrice, "--product"), `{"item": "Office chair", "price": 120.5}`)
	r = e.rerun("price", "--heal", "--base-url", renamer.URL+"/v1", "--model", "scripted")
	rep := decodeReport(t, r)
	if r.code != 1 || rep["verified"] != false || !strings.Contains(rep["reason"].(string), "exited with code") || !strings.Contains(fmt.Sprint(rep["heal"]), "interface") {
		t.Fatalf("rerun on v2 with an interface-changing heal: exit %d %v\n%s", r.code, rep, r.stderr.String())
	}
	if vs, _ := lib.Versions("price"); len(vs) != 1 {
		t.Fatalf("a refused heal saved a version: %d versions", len(vs))
	}

	// 6. --heal on v2 with a model that repairs it: v2 with its diff.
	healer := agentWriting(t, shopScript(v2Steps, goodPrice, "--item"), `{"item": "Office chair", "price": 120.5}`)
	r = e.rerun("price", "--heal", "--param", "item=Desk lamp", "--base-url", healer.URL+"/v1", "--model", "scripted")
	rep = decodeReport(t, r)
	if r.code != 0 || rep["verified"] != true || rep["version"] != 2.0 {
		t.Fatalf("heal: exit %d %v\n%s", r.code, rep, r.stderr.String())
	}
	if out, _ := rep["output"].(map[string]any); out["item"] != "Desk lamp" {
		t.Errorf("the healed rerun answered %v", rep["output"])
	}
	v2, err := lib.Latest("price")
	if err != nil || v2.Version.Version != 2 || v2.HealedFrom != 1 || v2.Source != "heal" || v2.Template != v1.Template {
		t.Fatalf("v2: %v %+v", err, v2.Version)
	}
	diff, err := os.ReadFile(filepath.Join(v2.Dir, library.DiffFile))
	if err != nil || !strings.Contains(string(diff), `+        page.get_by_role("button", name="Search now").click()`) {
		t.Errorf("v2's diff: %v\n%s", err, diff)
	}
	d := wright(t, "scripts", "diff", "price", "--library", e.lib)
	if d.code != 0 || !strings.Contains(d.stdout.String(), "Accept cookies") {
		t.Errorf("scripts diff: %d %s", d.code, d.stdout.String())
	}

	// 7. The next rerun on v2 passes without healing.
	r = e.rerun("price", "--param", "item=Monitor arm")
	if rep := decodeReport(t, r); r.code != 0 || rep["version"] != 2.0 || rep["heal"] != nil {
		t.Fatalf("rerun of v2: exit %d %v", r.code, rep)
	}

	// 8. History: one line per version, one per rerun.
	h := wright(t, "scripts", "history", "price", "--library", e.lib)
	out := h.stdout.String()
	if h.code != 0 || !strings.Contains(out, "v2  healed from v1") || !strings.Contains(out, "item=Desk lamp") || strings.Count(out, "rerun") != 6 {
		t.Errorf("history:\n%s", out)
	}
	hj := wright(t, "scripts", "history", "price", "--library", e.lib, "--json")
	var events []library.Event
	if err := json.Unmarshal(hj.stdout.Bytes(), &events); err != nil || len(events) != 8 {
		t.Errorf("history --json: %v, %d events", err, len(events))
	}
	l := wright(t, "scripts", "list", "--library", e.lib)
	if !strings.Contains(l.stdout.String(), "price") || !strings.Contains(l.stdout.String(), "v2") {
		t.Errorf("list:\n%s", l.stdout.String())
	}

}

// drawnTool is a crafted tool that draws its screenshot itself (no
// browser) and returns answer, a Python expression over item.
func drawnTool(answer string) string {
	return `"""Look up a product's price. Returns item and price."""
import argparse, json, os, struct, zlib
PRICES = {"Office chair": 120.5, "Desk lamp": 35.0, "Monitor arm": 89.0}


def png(path):
    raw = b"".join(b"\x00" + bytes([90, 80, 160]) * 4 for _ in range(3))
    def chunk(kind, data):
        c = struct.pack(">I", len(data)) + kind + data
        return c + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 3, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def run(item: str = "Office chair") -> dict:
    run_dir = os.environ["WRIGHT_RUN_DIR"]
    os.makedirs(os.path.join(run_dir, "screenshots"), exist_ok=True)
    png(os.path.join(run_dir, "screenshots", "final_execution_1_price.png"))
    result = ` + answer + `
    with open(os.path.join(run_dir, "final_script_log.txt"), "a") as f:
        f.write("step 1 action: looked up %s: %s\n" % (item, json.dumps(result)))
    return result


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--item", default="Office chair", help="the product to look up")
    result = run(ap.parse_args().item)
    with open(os.path.join(os.environ["WRIGHT_RUN_DIR"], "result.json"), "w") as f:
        json.dump(result, f)
`
}

// TestRerunCatchesWrongValues: a script that exits 0 with a wrong answer is
// not verified: by the schema (a price as text), by the judge (another
// product than asked).
func TestRerunCatchesWrongValues(t *testing.T) {
	t.Parallel()
	e := newShopEnv(t)
	lib, err := library.Open(e.lib)
	if err != nil {
		t.Fatal(err)
	}
	save := func(name, script string) {
		iface := library.Interface{Argparse: true, Run: true, Params: []library.Param{{Name: "item", Flag: "--item", Type: "str", Default: "Office chair", Help: "the product to look up"}}}
		task := `On the Acme shop, find the price of "Office chair" and report it.`
		if _, err := lib.Save(library.SaveSpec{Version: library.Version{Name: name, Source: "import", Task: task,
			Template: library.MakeTemplate(task, iface.Params), StartURL: e.site, Interface: iface, Crafted: true},
			Script: []byte(script), Schema: shopSchema}); err != nil {
			t.Fatal(err)
		}
	}
	// These tools draw their own screenshot instead of opening the shop:
	// what they are checked on is their answer.
	save("as-text", drawnTool(`{"item": item, "price": str(PRICES[item])}`))
	save("ignores-input", drawnTool(`{"item": "Office chair", "price": PRICES["Office chair"]}`))

	before := e.judge.Calls()
	r := e.rerun("as-text", "--param", "item=Desk lamp")
	rep := decodeReport(t, r)
	if r.code != 1 || !strings.Contains(rep["reason"].(string), "schema") || e.judge.Calls() != before {
		t.Errorf("a price as text: exit %d %v (judge calls %d)", r.code, rep, e.judge.Calls()-before)
	}
	r = e.rerun("ignores-input", "--param", "item=Desk lamp")
	rep = decodeReport(t, r)
	if r.code != 1 || !strings.Contains(rep["reason"].(string), "judge") {
		t.Errorf("another product's price: exit %d %v", r.code, rep)
	}
	// --verify schema: no judge call, and the same wrong answer passes the
	// schema: what schema-only verification does not prove.
	before = e.judge.Calls()
	r = e.rerun("ignores-input", "--param", "item=Desk lamp", "--verify", "schema")
	if rep := decodeReport(t, r); r.code != 0 || e.judge.Calls() != before {
		t.Errorf("--verify schema: exit %d %v", r.code, rep)
	}
	// No API key anywhere: the agent's model is not needed for a rerun,
	// and a judge that needs a key it lacks is a usage error before
	// anything runs.
	noKey := func(args ...string) *cliRun {
		cmd := exec.Command(wrightBin, args...)
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "OPENAI_API_KEY=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		r := &cliRun{}
		cmd.Stdout, cmd.Stderr = &r.stdout, &r.stderr
		if err := cmd.Run(); err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatal(err)
			}
			r.code = ee.ExitCode()
		}
		return r
	}
	reruns, _ := os.ReadDir(filepath.Join(lib.ScriptDir("as-text"), library.RerunsDir))
	if r := noKey("rerun", "as-text", "--library", e.lib, "-c", "gate.model={name: judge, base_url: \"https://judge.invalid/v1\", api_key_env: WRIGHT_TEST_JUDGE_KEY}"); r.code != 2 || !strings.Contains(r.stderr.String(), "WRIGHT_TEST_JUDGE_KEY") {
		t.Errorf("a judge without its key (and no agent key, which a rerun does not need): exit %d\n%s", r.code, r.stderr.String())
	}
	if after, _ := os.ReadDir(filepath.Join(lib.ScriptDir("as-text"), library.RerunsDir)); len(after) != len(reruns) {
		t.Errorf("a judge without its key left a rerun folder")
	}
	// The drift check: a working tool and a broken one; exit 1, one row each.
	save("works", drawnTool(`{"item": item, "price": PRICES[item]}`))
	save("broken", drawnTool(`{"item": item, "price": PRICES[item]}`+"\n    raise SystemExit(3)"))
	c := wright(t, append([]string{"scripts", "check", "works", "broken", "--library", e.lib, "--json"}, e.common()...)...)
	var rows []checkRow
	if err := json.Unmarshal(c.stdout.Bytes(), &rows); c.code != 1 || err != nil || len(rows) != 2 || rows[0].State != "works" || rows[1].State != "broken" || !strings.Contains(rows[1].Reason, "exited with code 3") {
		t.Errorf("check: exit %d %v %s\n%s", c.code, err, c.stdout.String(), c.stderr.String())
	}
	c = wright(t, append([]string{"scripts", "check", "works", "--library", e.lib}, e.common()...)...)
	if c.code != 0 || !strings.Contains(c.stdout.String(), "works") || strings.Contains(c.stderr.String(), "checking") {
		t.Errorf("check of a working script: exit %d\n%s\n%s", c.code, c.stdout.String(), c.stderr.String())
	}
	// Export and import under another name.
	file := filepath.Join(t.TempDir(), "as-text.tar.gz")
	if r := wright(t, "scripts", "export", "as-text", file, "--library", e.lib); r.code != 0 {
		t.Fatalf("export: %s", r.stderr.String())
	}
	if r := wright(t, "scripts", "import", file, "--library", e.lib); r.code != 2 {
		t.Errorf("import over an existing name: exit %d", r.code)
	}
	if r := wright(t, "scripts", "import", file, "--as", "copy", "--library", e.lib); r.code != 0 {
		t.Errorf("import --as: %s", r.stderr.String())
	}
	if s := wright(t, "scripts", "show", "copy", "--library", e.lib, "--json"); !strings.Contains(s.stdout.String(), `"name": "copy"`) {
		t.Errorf("show copy: %s", s.stdout.String())
	}
	if r := wright(t, "scripts", "rm", "copy", "--library", e.lib); r.code != 0 {
		t.Errorf("rm: %s", r.stderr.String())
	}
	if r := wright(t, "scripts", "show", "copy", "--library", e.lib); r.code != 2 {
		t.Errorf("show after rm: exit %d", r.code)
	}
}

// TestBenchReusesScripts: a bench fills the library (--save-scripts), and a
// second bench over script tasks is served by a verified rerun, by a heal
// and by an agent run, each recorded with its via, in the summary and in
// review.
func TestBenchReusesScripts(t *testing.T) {
	t.Parallel()
	e := newShopEnv(t)
	script := shopScript(v1Steps, goodPrice, "--item")
	// One agent for every run: it writes the v1 tool (a heal's repair too)
	// and says done.
	agent := modeltest.New(t, modeltest.Func(func(r modeltest.Request) modeltest.Response {
		if len(r.Chat().Messages) <= 2 {
			return modeltest.Bash("write the tool", "cat > final_script.py <<'EOF'\n"+script+"EOF\necho ok").WithUsage(1000, 100)
		}
		return modeltest.Done(model.FieldBash, "the gate reruns it", "the price").WithUsage(1000, 100)
	}).Forever())
	suiteFile := filepath.Join(t.TempDir(), "suite.jsonl")
	task := func(id, script, item string) string {
		b, _ := json.Marshal(map[string]any{"task_id": id, "task": `On the Acme shop, find the price of "` + item + `" and report it.`,
			"start_url": e.site, "script": script, "params": map[string]any{"item": item},
			"eval": map[string]any{"answer": map[string]any{"must_include": []string{shopPrices[item]}}}})
		return string(b)
	}
	write := func(lines ...string) {
		if err := os.WriteFile(suiteFile, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := func(out string, extra ...string) []string {
		return append(append([]string{"bench", suiteFile, "-o", out, "--library", e.lib, "--base-url", agent.URL + "/v1", "--model", "scripted",
			"-c", "crafted_cli", "-c", "model.price_per_mtok={input: 10, output: 10}", "-c", "agent.step_limit=6", "--retries", "0"}, e.common()...), extra...)
	}

	// 1. Fill the library: the script task has no script yet, so an agent
	// run does it and is saved under the script's name.
	write(`{"task_id": "made", "task": "On the Acme shop, find the price of \"Office chair\" and report it.", "start_url": "` + e.site + `", "script": "price"}`)
	first := filepath.Join(t.TempDir(), "first")
	if r := wright(t, args(first, "--save-scripts")...); r.code != 0 {
		t.Fatalf("first bench: exit %d\n%s\n%s", r.code, r.stdout.String(), r.stderr.String())
	}
	if rec := readResults(t, first)["made"]; rec.Via != bench.ViaAgent {
		t.Fatalf("first bench: via %q", rec.Via)
	}
	lib, _ := library.Open(e.lib)
	made, err := lib.Latest("price")
	if err != nil {
		t.Fatalf("--save-scripts saved nothing: %v", err)
	}
	// A script that no longer fits the site: the v2 tool, on v1.
	spec := library.SaveSpec{Version: made.Version, Script: []byte(shopScript(v2Steps, goodPrice, "--item"))}
	spec.Name = "stale"
	if _, err := lib.Save(spec); err != nil {
		t.Fatal(err)
	}

	// 2. Reuse: a rerun, a heal, and an agent run for a task whose script
	// is not in the library.
	write(task("reused", "price", "Desk lamp"), task("healed", "stale", "Office chair"), task("fresh", "unknown", "Office chair"))
	second := filepath.Join(t.TempDir(), "second")
	r := wright(t, args(second, "--heal")...)
	if r.code != 0 {
		t.Fatalf("second bench: exit %d\n%s\n%s", r.code, r.stdout.String(), r.stderr.String())
	}
	recs := readResults(t, second)
	for id, via := range map[string]string{"reused": bench.ViaRerun, "healed": bench.ViaHeal, "fresh": bench.ViaAgent} {
		rec := recs[id]
		if rec.Via != via {
			t.Errorf("%s: via %q, want %q (%+v)", id, rec.Via, via, rec)
		}
		if id != "fresh" && (rec.Passed == nil || !*rec.Passed) {
			t.Errorf("%s: not passed: %+v", id, rec)
		}
	}
	if rec := recs["reused"]; rec.AgentCost == nil || *rec.AgentCost <= rec.Cost || rec.Steps != 0 {
		t.Errorf("reused: agent cost %v against its own %v, steps %d", rec.AgentCost, rec.Cost, rec.Steps)
	}
	if !strings.Contains(r.stdout.String(), "served by rerun 1") || !strings.Contains(r.stdout.String(), "heal 1") || !strings.Contains(r.stdout.String(), "cost saved $") {
		t.Errorf("bench's line on the paths:\n%s", r.stdout.String())
	}
	md, _ := os.ReadFile(filepath.Join(second, "summary.md"))
	if !strings.Contains(string(md), "## By path (script library)") || !strings.Contains(string(md), "| rerun | 1 |") || !strings.Contains(string(md), "Cost saved") {
		t.Errorf("summary.md:\n%s", md)
	}
	rv := wright(t, "review", second, "--plain")
	if !strings.Contains(rv.stdout.String(), "| rerun | 1 | 1 | 0 | 100% |") || !strings.Contains(rv.stdout.String(), "| heal | 1 |") {
		t.Errorf("review of the bench:\n%s\n%s", rv.stdout.String(), rv.stderr.String())
	}
}

// TestRerunFailureSaysWhy: a rerun whose script fails (a product the shop
// does not have: the price never shows and the wait times out) prints the
// end of the script's error, not only its exit code, and rerun.json holds
// it too.
func TestRerunFailureSaysWhy(t *testing.T) {
	t.Parallel()
	e := newShopEnv(t)
	lib, err := library.Open(e.lib)
	if err != nil {
		t.Fatal(err)
	}
	iface := library.Interface{Argparse: true, Run: true, Params: []library.Param{{Name: "item", Flag: "--item", Type: "str", Default: "Office chair", Help: "the product to look up"}}}
	task := `On the Acme shop, find the price of "Office chair" and report it.`
	if _, err := lib.Save(library.SaveSpec{Version: library.Version{Name: "price", Source: "import", Task: task,
		Template: library.MakeTemplate(task, iface.Params), StartURL: e.site, Interface: iface, Crafted: true},
		Script: []byte(shopScript(v1Steps, goodPrice, "--item")), Schema: shopSchema}); err != nil {
		t.Fatal(err)
	}
	before := e.judge.Calls()
	r := wright(t, append([]string{"rerun", "price", "--library", e.lib, "--param", "item=No Such Thing"}, e.common()...)...)
	stderr := r.stderr.String()
	if r.code != 1 || !strings.Contains(stderr, "NOT verified: the script exited with code 1") {
		t.Fatalf("rerun of a missing product: exit %d\n%s", r.code, stderr)
	}
	if e.judge.Calls() != before {
		t.Errorf("a script that failed was judged")
	}
	// The error the script died of: the wait that timed out, on the
	// line of the script that waited.
	for _, want := range []string{"Timeout", `locator("#price")`, "final_script.py"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the failed rerun's account lacks %q:\n%s", want, stderr)
		}
	}
	t.Logf("stderr:\n%s", stderr)
	// rerun.json has the same tail, and the rest as before.
	reruns, _ := filepath.Glob(filepath.Join(lib.ScriptDir("price"), library.RerunsDir, "*", "rerun.json"))
	if len(reruns) != 1 {
		t.Fatalf("rerun.json: %v", reruns)
	}
	b, err := os.ReadFile(reruns[0])
	if err != nil {
		t.Fatal(err)
	}
	var rep map[string]any
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	tail, _ := rep["error_tail"].(string)
	if !strings.Contains(tail, "Timeout") || !strings.Contains(tail, `locator("#price")`) || len(tail) > 2000 || strings.Count(tail, "\n") > 20 {
		t.Errorf("rerun.json's error_tail (%d bytes): %q", len(tail), tail)
	}
	if !strings.Contains(stderr, strings.SplitN(tail, "\n", 2)[0]) {
		t.Errorf("stderr does not print rerun.json's error_tail")
	}
	if rep["verified"] != false || rep["reason"] != "the script exited with code 1" || rep["name"] != "price" || rep["run_dir"] == "" {
		t.Errorf("rerun.json: %v", rep)
	}
	// --json prints the same object.
	j := e.rerun("price", "--param", "item=No Such Thing")
	if rep := decodeReport(t, j); j.code != 1 || !strings.Contains(fmt.Sprint(rep["error_tail"]), "Timeout") {
		t.Errorf("rerun --json of a failure: exit %d %v", j.code, rep)
	}
}
