package live

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"wright/browser"

	"wright/run/templates"
)

// BenchmarkStep measures one live step with trivial code: the runner's
// round trip plus the whole observation (load-state check, title, ARIA
// snapshot, viewport screenshot written to disk, tabs, console). It also
// reports the observation's size as the model gets it: the ARIA snapshot
// and the rendered observation text, in characters.
//
//	go test ./env/live -run '^$' -bench Step -benchtime 20x
func BenchmarkStep(b *testing.B) {
	site := fixtureSite(b)
	e, _ := startEnv(b, site.URL+"/", nil)
	var tpl templates.Set
	for _, page := range []string{"index.html", "form.html", "products.html", "order.html", "big.html"} {
		b.Run(page, func(b *testing.B) {
			obs := step(b, e, 1, "page.goto('"+site.URL+"/"+page+"')")
			wantSuccess(b, obs)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				o, err := e.Execute(context.Background(), i+2, "pass")
				if err != nil {
					b.Fatal(err)
				}
				obs = o.Flat()
			}
			b.StopTimer()
			text, err := tpl.Render("builtin:browser_observation.j2", map[string]any{"observation": obs, "step_timeout_seconds": 120})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(len([]rune(str(obs, "aria_snapshot")))), "aria_chars")
			b.ReportMetric(float64(len([]rune(text))), "obs_chars")
		})
	}
}

// BenchmarkObservationPages is bench/measure/perf's live side: for each URL in
// PERF_LIVE_PAGES (space-separated), the time of a `pass` step, from the
// Execute call to the observation in hand, PERF_REPS times; one JSON line
// per page. The model's turn between steps, in which the screenshot is
// written, is left out of the timing (Flush). Skipped without the variable.
func BenchmarkObservationPages(b *testing.B) {
	urls := strings.Fields(os.Getenv("PERF_LIVE_PAGES"))
	if len(urls) == 0 {
		b.Skip("PERF_LIVE_PAGES is not set (bench/measure/perf/run.sh sets it)")
	}
	reps, _ := strconv.Atoi(os.Getenv("PERF_REPS"))
	reps = max(reps, 1)
	e, _ := startEnv(b, "about:blank", func(o *Options) { o.Browser.Viewport = browser.Viewport{Width: 1280, Height: 1800} })
	n := 1
	for range b.N {
		for _, u := range urls {
			wantSuccess(b, step(b, e, n, "page.goto("+strconv.Quote(u)+", wait_until='load')"))
			n++
			var total, obsOnly time.Duration
			for range reps {
				e.Flush()
				t0 := time.Now()
				obs := step(b, e, n, "pass")
				d := time.Since(t0)
				n++
				total += d
				ms, _ := obs["elapsed_ms"].(int64)
				obsOnly += d - time.Duration(ms)*time.Millisecond
			}
			row, _ := json.Marshal(map[string]any{"side": "live", "url": u,
				"step_ms": float64(total.Microseconds()) / 1000 / float64(reps),
				"obs_ms":  float64(obsOnly.Microseconds()) / 1000 / float64(reps)})
			fmt.Println(string(row))
		}
	}
}

// BenchmarkSyntaxCheck times a step's syntax check, a ten-line action,
// answered by the running runner (what a step does now) and by a python3
// of its own (what it did before, and still does with no runner up).
//
//	go test ./env/live -run '^$' -bench SyntaxCheck -benchtime 20x
func BenchmarkSyntaxCheck(b *testing.B) {
	site := fixtureSite(b)
	e, _ := startEnv(b, site.URL+"/", nil)
	code := strings.Repeat("page.get_by_role('button', name='Save').click()\n", 10)
	for _, side := range []struct {
		name  string
		check func(context.Context, string) error
	}{{"runner", e.Kind().Check}, {"process", checkPython}} {
		b.Run(side.name, func(b *testing.B) {
			for b.Loop() {
				if err := side.check(context.Background(), code); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
