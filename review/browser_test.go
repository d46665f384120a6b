package review

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"

	"wright/browser"
)

// The package's tests share one Chromium, launched on first use.
var (
	launchOnce sync.Once
	shared     *browser.Browser
	launchErr  error
)

func sharedBrowser(t *testing.T) *browser.Browser {
	t.Helper()
	launchOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		shared, launchErr = browser.Launch(ctx, browser.Options{})
	})
	if launchErr != nil {
		t.Fatal(launchErr)
	}
	return shared
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if shared != nil {
		_ = shared.Close(context.Background())
	}
	os.Exit(code)
}

var update = flag.Bool("update", false, "save the pages' screenshots under docs/")

// openPage opens a page file in headless Chromium through wright's own
// browser package and records every request the page makes.
func openPage(t *testing.T, file string) (*browser.Page, func() []string) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	b := sharedBrowser(t)
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	if err := p.SetViewportSize(ctx, 1280, 800); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var requests []string
	rp := p.Rod().Context(ctx)
	if err := (proto.NetworkEnable{}).Call(rp); err != nil {
		t.Fatal(err)
	}
	wait := rp.EachEvent(func(e *proto.NetworkRequestWillBeSent) {
		mu.Lock()
		requests = append(requests, e.Request.URL)
		mu.Unlock()
	})
	go wait()
	abs, _ := filepath.Abs(file)
	u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	if _, err := p.Goto(ctx, u, browser.Load, 0); err != nil {
		t.Fatal(err)
	}
	return p, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), requests...)
	}
}

func eval[T any](t *testing.T, p *browser.Page, js string) T {
	t.Helper()
	raw, err := p.Evaluate(context.Background(), js, nil, 10*time.Second)
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s = %s: %v", js, raw, err)
	}
	return v
}

// noNetwork fails the test for any request but the page file itself and
// its inline data.
func noNetwork(t *testing.T, requests []string, page string) {
	t.Helper()
	sawPage := false
	for _, r := range requests {
		switch {
		case strings.HasPrefix(r, "data:"):
		case strings.HasPrefix(r, "file:") && strings.HasSuffix(r, filepath.Base(page)):
			sawPage = true
		default:
			t.Errorf("the page made a request: %s", r)
		}
	}
	if !sawPage {
		t.Errorf("the request log missed the page itself, so it proves nothing: %v", requests)
	}
}

func writePage(t *testing.T, path string, render func(*bytes.Buffer) error) {
	t.Helper()
	var b bytes.Buffer
	if err := render(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func saveShot(t *testing.T, p *browser.Page, name string) {
	if !*update {
		return
	}
	png, err := p.Screenshot(context.Background(), false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("..", "docs", name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRunPageInBrowser(t *testing.T) {
	for _, name := range []string{"finished", "live", "gate_refused"} {
		t.Run(name, func(t *testing.T) {
			r := load(t, name)
			out := filepath.Join(t.TempDir(), "review.html")
			writePage(t, out, func(b *bytes.Buffer) error {
				return WriteRunHTML(b, r, HTMLOptions{FileBase: LinkBase(r.Dir, out)})
			})
			p, requests := openPage(t, out)
			if got := eval[[]int](t, p, `[...document.querySelectorAll("section.step")].map(s => +s.dataset.step)`); len(got) != len(r.Steps) {
				t.Errorf("steps on the page %v, in the run %d", got, len(r.Steps))
			}
			want := 0
			for _, s := range r.Steps {
				want += len(s.Screenshots)
			}
			for _, fr := range r.FinalRuns {
				want += len(fr.Screenshots)
			}
			imgs := eval[[]int](t, p, `Promise.all([...document.querySelectorAll("img.shot")].map(i => i.decode().then(() => i.naturalWidth, () => 0)))`)
			if len(imgs) != want || want == 0 && name != "gate_refused" {
				t.Errorf("%d images on the page, %d in the run", len(imgs), want)
			}
			for i, w := range imgs {
				if w == 0 || w > thumbWidth {
					t.Errorf("image %d did not load or is not downscaled (width %d)", i, w)
				}
			}
			// Each screenshot is shown whole: its rendered box has the
			// image's own aspect ratio (no crop), fits inside its card, and
			// is a link to the full file.
			type box struct {
				Name           string
				W, H, NW, NH   float64
				Fit            string
				Inside, Linked bool
			}
			boxes := eval[[]box](t, p, `[...document.querySelectorAll("img.shot")].map(i => {
				const r = i.getBoundingClientRect(), c = i.closest("figure").getBoundingClientRect();
				return {Name: i.alt, W: r.width, H: r.height, NW: i.naturalWidth, NH: i.naturalHeight, Fit: getComputedStyle(i).objectFit,
					Inside: r.left >= c.left - 0.5 && r.right <= c.right + 0.5, Linked: !!i.closest("a[href]")};
			})`)
			for _, b := range boxes {
				if b.W == 0 || b.NH == 0 {
					continue // counted above
				}
				if got, want := b.W/b.H, b.NW/b.NH; got/want < 0.98 || got/want > 1.02 || b.Fit == "cover" || !b.Inside || !b.Linked {
					t.Errorf("%s: box %.0fx%.0f (ratio %.3f) for a %.0fx%.0f image (ratio %.3f), object-fit %s, inside its card %v, linked %v",
						b.Name, b.W, b.H, got, b.NW, b.NH, want, b.Fit, b.Inside, b.Linked)
				}
			}
			// Keyboard: j moves to the next step, k back, G to the last.
			keys := []struct {
				key  string
				want string
			}{{"j", "1"}, {"j", "2"}, {"k", "1"}, {"G", itoa(r.Steps[len(r.Steps)-1].N)}, {"g", "1"}}
			for _, k := range keys {
				if err := p.Keyboard().Press(context.Background(), k.key); err != nil {
					t.Fatal(err)
				}
				cur := eval[string](t, p, `document.body.dataset.current || ""`)
				top := eval[float64](t, p, `document.querySelector("section.step.current").getBoundingClientRect().top`)
				if cur != k.want || (k.key != "G" && (top < -1 || top > 40)) {
					t.Errorf("after %q the current step is %q at %.0fpx, want step %s at the top", k.key, cur, top, k.want)
				}
			}
			if name == "finished" {
				_ = p.Keyboard().Press(context.Background(), "g")
				_, _ = p.Evaluate(context.Background(), `window.scrollTo(0, 0)`, nil, time.Second)
				saveShot(t, p, "review.png")
			}
			noNetwork(t, requests(), out)
		})
	}
}

func TestBenchPageInBrowser(t *testing.T) {
	dir, _ := makeBench(t)
	b, err := LoadBench(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "review.html")
	writePage(t, out, func(w *bytes.Buffer) error {
		return WriteBenchHTML(w, b, HTMLOptions{RunLink: func(rel string) string { return rel + "/review.html" }})
	})
	p, requests := openPage(t, out)
	visible := func() []string {
		return eval[[]string](t, p, `[...document.querySelectorAll("table.results tbody tr")].filter(r => !r.hidden).map(r => r.cells[0].textContent.trim())`)
	}
	if rows := visible(); len(rows) != 20 {
		t.Fatalf("%d rows, want 20", len(rows))
	}
	if n := eval[string](t, p, `document.querySelector("table.results tbody tr").cells[1].textContent`); n != "1" {
		t.Errorf("the attempt column shows %q", n)
	}
	click := func(sel string) {
		l, err := p.Locator(sel)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Click(context.Background(), browser.ClickOptions{}); err != nil {
			t.Fatalf("click %s: %v", sel, err)
		}
	}
	click(`.filters button[data-status="failed"]`)
	if rows := visible(); len(rows) != 9 {
		t.Errorf("the failed filter shows %d rows, want 9: %v", len(rows), rows)
	}
	click(`.filters button[data-status="LimitsExceeded"]`)
	if rows := visible(); len(rows) != 3 || rows[0] != "task_16" {
		t.Errorf("the LimitsExceeded filter shows %v", rows)
	}
	click(`.filters button[data-status="all"]`)
	click(`table.results th:nth-child(6)`) // steps, ascending
	click(`table.results th:nth-child(6)`) // descending
	if rows := visible(); rows[0] != "task_20" || rows[19] != "task_01" {
		t.Errorf("sorted by steps descending: %v", rows)
	}
	_, _ = p.Evaluate(context.Background(), `window.scrollTo(0, 0)`, nil, time.Second)
	saveShot(t, p, "review-bench.png")
	noNetwork(t, requests(), out)
}

// A served page follows the run: when the step the run was in is written,
// the page shows it without a hand on the keyboard.
func TestServedPageFollowsTheRun(t *testing.T) {
	dir := copyRun(t, fixture("crashed"), t.TempDir())
	srv := httptest.NewServer(&Handler{Dir: dir, Token: "tok"})
	defer srv.Close()
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p, err := sharedBrowser(t).NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	if _, err := p.Goto(ctx, srv.URL+"/tok/", browser.Load, 0); err != nil {
		t.Fatal(err)
	}
	running := `document.querySelector("#step-2 .note.incomplete") !== null`
	if !eval[bool](t, p, running) {
		t.Fatal("step 2 is not shown as running")
	}
	b, _ := os.ReadFile(filepath.Join(dir, "debug", "steps", "step_0001.json"))
	step2 := strings.Replace(strings.Replace(string(b), `"step": 1`, `"step": 2`, 1), "echo started", "sleep 6; echo finished", 1)
	if err := os.WriteFile(filepath.Join(dir, "debug", "steps", "step_0002.json"), []byte(step2), 0o644); err != nil {
		t.Fatal(err)
	}
	for eval[bool](t, p, running) {
		if ctx.Err() != nil {
			t.Fatal("the page never showed step 2's result")
		}
		time.Sleep(300 * time.Millisecond)
	}
}

var shotsDir = flag.String("shots", "", "save a screenshot of each page at each width checked into this folder")

// clippedImages lists every image on the page that is not shown whole: one
// whose box leaves the visible area of an ancestor that clips (overflow
// other than visible), or of the page, unless that ancestor visibly
// scrolls (overflow auto or scroll and a scrollbar that takes room:
// headless Chromium hides overlay scrollbars, so the test asks for room).
const clippedImages = `(() => {
  const out = [];
  const vw = document.documentElement.clientWidth;
  for (const img of document.querySelectorAll("img")) {
    const r = img.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) { out.push(img.alt + ": not rendered"); continue; }
    if (r.left < -0.5 || r.right > vw + 0.5) out.push(img.alt + ": leaves the page (" + r.left.toFixed(0) + ".." + r.right.toFixed(0) + " of " + vw + ")");
    for (let a = img.parentElement; a && a !== document.body; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.overflowX === "visible" && cs.overflowY === "visible") continue;
      const c = a.getBoundingClientRect();
      const left = c.left + a.clientLeft, top = c.top + a.clientTop;
      const insideX = r.left >= left - 0.5 && r.right <= left + a.clientWidth + 0.5;
      const insideY = r.top >= top - 0.5 && r.bottom <= top + a.clientHeight + 0.5;
      const scrolls = (o) => o === "auto" || o === "scroll";
      const barX = scrolls(cs.overflowX) && a.offsetHeight - a.clientHeight - a.clientTop * 2 > 0;
      const barY = scrolls(cs.overflowY) && a.offsetWidth - a.clientWidth - a.clientLeft * 2 > 0;
      if ((!insideX && !barX) || (!insideY && !barY)) out.push(img.alt + ": cut by " + a.tagName.toLowerCase() + "." + a.className);
    }
  }
  return out;
})()`

// Every screenshot on a run page and every thumbnail on a bench page is
// shown whole at a desktop and at a phone width: the final runs' strip
// wraps instead of cutting its last frames, the side list of steps moves
// above the page on a phone, the bench's rows become cards there; a
// frame's score and caption are not cut either; the bench's thumbnails are
// wide enough to read at 1280 px and open the full screenshot on a click;
// a mostly blank live screenshot is shown without its blank bottom.
func TestPagesShowImagesWhole(t *testing.T) {
	dir, _ := makeBench(t)
	b, err := LoadBench(dir)
	if err != nil {
		t.Fatal(err)
	}
	benchPage := filepath.Join(dir, "review.html")
	writePage(t, benchPage, func(w *bytes.Buffer) error {
		return WriteBenchHTML(w, b, HTMLOptions{FileBase: LinkBase(dir, benchPage), RunLink: func(rel string) string { return rel + "/review.html" }})
	})
	pages := map[string]string{"bench": benchPage}
	for _, name := range []string{"finished", "live"} {
		r := load(t, name)
		out := filepath.Join(t.TempDir(), name+".html")
		writePage(t, out, func(b *bytes.Buffer) error {
			return WriteRunHTML(b, r, HTMLOptions{FileBase: LinkBase(r.Dir, out)})
		})
		pages[name] = out
	}
	for _, width := range []int{1280, 390} {
		for _, name := range []string{"finished", "live", "bench"} {
			t.Run(fmt.Sprintf("%s_%d", name, width), func(t *testing.T) {
				p, _ := openPage(t, pages[name])
				if err := p.SetViewportSize(context.Background(), width, 800); err != nil {
					t.Fatal(err)
				}
				n := eval[int](t, p, `Promise.all([...document.querySelectorAll("img")].map(i => i.decode())).then(a => a.length)`)
				if n == 0 {
					t.Fatal("no image on the page")
				}
				for _, c := range eval[[]string](t, p, clippedImages) {
					t.Error(c)
				}
				if *shotsDir != "" {
					png, err := p.Screenshot(context.Background(), true, 0)
					if err != nil {
						t.Fatal(err)
					}
					_ = os.WriteFile(filepath.Join(*shotsDir, fmt.Sprintf("%s_%d.png", name, width)), png, 0o644)
				}
				switch name {
				case "finished":
					// Each frame's caption (its score, the judge's reasoning) lies
					// within the frame and the page.
					cut := eval[[]string](t, p, `[...document.querySelectorAll(".frame figcaption")].filter(c => {
						const r = c.getBoundingClientRect(), f = c.closest(".finalrun").getBoundingClientRect();
						return r.right > Math.min(f.right, document.documentElement.clientWidth) + 0.5 || c.scrollWidth > c.clientWidth + 1;
					}).map(c => c.textContent.slice(0, 40))`)
					if len(cut) > 0 {
						t.Errorf("captions cut: %q", cut)
					}
				case "live":
					// The live fixture's pages fill the top of a 1280x1800
					// viewport; the page shows them without the blank below.
					ratios := eval[[]float64](t, p, `[...document.querySelectorAll(".stepshot img.shot")].map(i => i.naturalHeight / i.naturalWidth)`)
					for i, r := range ratios {
						if r > 1 {
							t.Errorf("step screenshot %d is shown %.2f times as tall as wide: its blank bottom is not trimmed", i+1, r)
						}
					}
					notes := eval[int](t, p, `[...document.querySelectorAll(".stepshot figcaption")].filter(c => /blank below/.test(c.textContent)).length`)
					if notes != len(ratios) {
						t.Errorf("%d of %d trimmed screenshots say so in their caption", notes, len(ratios))
					}
				case "bench":
					type thumb struct {
						W    float64
						Href string
					}
					thumbs := eval[[]thumb](t, p, `[...document.querySelectorAll("img.thumb")].map(i => ({W: i.getBoundingClientRect().width, Href: (i.closest("a[href]") || {}).href || ""}))`)
					if len(thumbs) != 15 { // the refused and the crashed runs took none
						t.Fatalf("%d thumbnails, want 15", len(thumbs))
					}
					for i, th := range thumbs {
						if width == 1280 && th.W < 240 {
							t.Errorf("thumbnail %d is %.0f px wide: too small to read", i+1, th.W)
						}
						if !strings.HasSuffix(th.Href, ".png") {
							t.Errorf("thumbnail %d opens %q, not the screenshot", i+1, th.Href)
							continue
						}
						u, err := url.Parse(th.Href)
						if err != nil {
							t.Fatal(err)
						}
						if _, err := os.Stat(u.Path); err != nil {
							t.Errorf("thumbnail %d opens a file that is not there: %v", i+1, err)
						}
					}
				}
				if w := eval[float64](t, p, `document.documentElement.scrollWidth`); w > float64(width)+0.5 {
					t.Errorf("at %d px the page is %.0f px wide: it scrolls sideways", width, w)
				}
			})
		}
	}
}
