package live

import (
	"context"
	"testing"

	"wright/templates"
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
