package live

import (
	"fmt"
	"strings"
	"testing"
)

// The URL policy holds on the browser's own interception layer too, not
// only on the proxy: a route.continue_(url=...) that rewrites a request to
// a blocked host is refused (and the page sees a failed request rather
// than one paused for ever); with routing on, a request to a blocked host
// is refused before any route sees it; a blob: URL is judged by the origin
// inside it; and a page cannot move its top frame to a data: URL.
func TestPolicyOnTheInterceptionLayer(t *testing.T) {
	port, reached := blockedTarget(t)
	blocked := "http://blocked.localhost:" + port
	site := fixtureSite(t)
	e, _ := startEnv(t, site.URL+"/", func(o *Options) { o.BlockedDomains = []string{"blocked.localhost"} })
	code := fmt.Sprintf(`seen, refused = [], []
def handler(route):
    seen.append(route.request.url)
    if "/rewrite-me" in route.request.url:
        try:
            route.continue_(url=%[1]q + "/stolen")
        except Exception as ex:
            refused.append(str(ex))
    else:
        route.continue_()
page.route("**/*", handler)
print("rewrite:", page.evaluate("fetch('/rewrite-me').then(r => 'ok ' + r.status).catch(e => 'failed')"))
print("direct:", page.evaluate("fetch('%[1]s/direct').then(r => 'ok ' + r.status).catch(e => 'failed')"))
page.unroute("**/*")
print("refused:", len(refused), "blocked" in " ".join(refused))
print("route saw the blocked host:", any("blocked.localhost" in u for u in seen))
try:
    page.goto(%[1]q.replace("http://", "blob:http://") + "/0d2c5f0e")
    print("blob: loaded")
except Exception as ex:
    print("blob: refused", "URL policy" in str(ex))
before = page.url
page.evaluate("location.href = 'data:text/html,<title>from data</title>'")
page.wait_for_timeout(500)
print("data top frame:", page.url == before, page.title() != "from data")
`, blocked)
	obs := step(t, e, 1, code)
	wantSuccess(t, obs)
	out := str(obs, "python_output")
	for _, want := range []string{"rewrite: failed", "direct: failed", "refused: 1 True", "route saw the blocked host: False", "blob: refused True", "data top frame: True True"} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
	if !strings.Contains(str(obs, "console_output"), "blocked a request rewritten to") {
		t.Errorf("no console message for the refused rewrite: %q", str(obs, "console_output"))
	}
	if got := reached(); len(got) > 0 {
		t.Errorf("the blocked host was reached: %v", got)
	}
}
