package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"wright/browser"
	"wright/internal/peerpages"
)

// BenchmarkWarmLaunch times the five-line script of bench/measure/warm
// (launch, new page, goto a local page, title, close), each run a whole
// process, on three sides in one run, interleaved so all three see the same
// machine: wright's client on the run's warm browser (WRIGHT_DRIVER_WARM,
// as every workspace run's scripts have it), wright's client with launch()
// cold (no warm socket: it starts `wright driver` and a Chromium), and
// Playwright's Node client (playwright-core from npm) on the same system
// Chromium. It runs WARM_ROUNDS rounds (default 20) whatever b.N is and
// reports each side's median and the ratios; `make bench-warm` runs it.
func BenchmarkWarmLaunch(b *testing.B) {
	rounds := 20
	if s := os.Getenv("WARM_ROUNDS"); s != "" {
		fmt.Sscan(s, &rounds)
	}
	chromium, err := browser.FindExecutable("")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	pwCore, err := peerpages.PlaywrightCore(ctx)
	if err != nil {
		b.Fatalf("playwright-core from npm: %v", err)
	}
	bin := filepath.Join(b.TempDir(), "wright")
	if out, err := exec.Command("go", "build", "-o", bin, "wright/cmd/wright").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<!doctype html><title>five lines</title><h1>hello</h1>")
	}))
	defer srv.Close()
	scripts, err := filepath.Abs(filepath.Join("..", "..", "bench", "measure", "warm"))
	if err != nil {
		b.Fatal(err)
	}
	// The interpreter itself, as node is: a python3 on PATH may be a
	// version manager's shell shim, which would time the shim.
	py, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		b.Fatalf("python3: %v", err)
	}
	python := strings.TrimSpace(string(py))
	_, warm, env := warmDrivers(b)
	base := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, "WRIGHT_BIN=") || strings.HasPrefix(kv, DriverWarmEnv+"=")
	})
	cold := append(slices.Clone(base), "WRIGHT_BIN="+bin, "WRIGHT_BROWSER="+chromium)
	sides := []struct {
		name string
		argv []string
		env  []string
	}{
		{"wright warm", []string{python, filepath.Join(scripts, "five.py"), srv.URL}, env},
		{"wright cold", []string{python, filepath.Join(scripts, "five.py"), srv.URL}, cold},
		{"playwright node", []string{"node", filepath.Join(scripts, "five.cjs"), srv.URL},
			append(slices.Clone(base), "PW_CORE="+pwCore, "PW_CHROMIUM="+chromium)},
	}
	times := make([][]time.Duration, len(sides))
	run := func(i int) time.Duration {
		s := sides[i]
		cmd := exec.CommandContext(ctx, s.argv[0], s.argv[1:]...)
		cmd.Env, cmd.Dir = s.env, b.TempDir()
		cmd.WaitDelay = 5 * time.Second
		began := time.Now()
		out, err := cmd.CombinedOutput()
		took := time.Since(began)
		if err != nil || !strings.Contains(string(out), "five lines") {
			b.Fatalf("%s: %v\n%s", s.name, err, out)
		}
		return took
	}
	// One round unmeasured: the warm browser's first start, node's and
	// Python's files into the page cache.
	for i := range sides {
		run(i)
	}
	b.ResetTimer()
	for r := 0; r < rounds; r++ {
		for i := range sides {
			times[i] = append(times[i], run(i))
		}
	}
	b.StopTimer()
	med := make([]time.Duration, len(sides))
	for i, s := range sides {
		slices.Sort(times[i])
		med[i] = times[i][len(times[i])/2]
		p90 := times[i][(len(times[i])*9)/10]
		b.Logf("%-16s n=%d  median %4d ms  p90 %4d ms  min %4d ms  max %4d ms", s.name, len(times[i]),
			med[i].Milliseconds(), p90.Milliseconds(), times[i][0].Milliseconds(), times[i][len(times[i])-1].Milliseconds())
		b.ReportMetric(float64(med[i].Microseconds())/1000, strings.ReplaceAll(s.name, " ", "_")+"_median_ms")
	}
	b.Logf("warm / playwright %.2fx   cold / playwright %.2fx   warm / cold %.2fx   Chromium launches for %d warm scripts: %d",
		float64(med[0])/float64(med[2]), float64(med[1])/float64(med[2]), float64(med[0])/float64(med[1]), rounds+1, warm.started.Load())
	b.ReportMetric(float64(med[0])/float64(med[2]), "warm/playwright")
}

// BenchmarkWarmSteps times the parts of the five-line script inside the
// process (bench/measure/warm/five_timed.py on the warm browser): the
// client's import, launch(), new_page(), goto, title and close(). It runs
// WARM_ROUNDS scripts (default 20) after one untimed, and reports each
// part's median, to see where a warm script's time goes. With
// WRIGHT_TRACE_CALLS=1 each script prints its driver calls and their times.
func BenchmarkWarmSteps(b *testing.B) {
	rounds := 20
	if s := os.Getenv("WARM_ROUNDS"); s != "" {
		fmt.Sscan(s, &rounds)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<!doctype html><title>five lines</title><h1>hello</h1>")
	}))
	defer srv.Close()
	script, err := filepath.Abs(filepath.Join("..", "..", "bench", "measure", "warm", "five_timed.py"))
	if err != nil {
		b.Fatal(err)
	}
	_, _, env := warmDrivers(b)
	parts := []string{"import", "launch", "new_page", "goto", "title", "close"}
	got := map[string][]float64{}
	dir := b.TempDir()
	for r := -1; r < rounds; r++ {
		cmd := exec.CommandContext(ctx, "python3", script, srv.URL)
		cmd.Env, cmd.Dir, cmd.WaitDelay = env, dir, 5*time.Second
		if os.Getenv("WRIGHT_TRACE_CALLS") != "" {
			cmd.Stderr = os.Stderr // the script's trace of its driver calls
		}
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("five_timed.py: %v\n%s", err, out)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		var res map[string]any
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil || res["page_title"] != "five lines" {
			b.Fatalf("five_timed.py printed %q (%v)", out, err)
		}
		if r < 0 {
			continue // the warm browser's first start
		}
		for _, k := range parts {
			v, _ := res[k].(float64)
			got[k] = append(got[k], v)
		}
	}
	line := ""
	for _, k := range parts {
		slices.Sort(got[k])
		med := got[k][len(got[k])/2]
		line += fmt.Sprintf("  %s %.1f", k, med)
		b.ReportMetric(med, k+"_median_ms")
	}
	b.Logf("medians over %d warm scripts, ms:%s", rounds, line)
}
