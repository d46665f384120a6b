//go:build ariabench

// Package ariabench compares wright's ARIA snapshots with Playwright's on
// the same pages and the same Chromium. It is outside CI: run.sh installs
// playwright-core into a temporary directory and runs
//
//	go test -tags ariabench ./bench/measure/aria -run TestPeerComparison -v
//
// with ARIA_BENCH_NODE_DIR (where playwright-core is installed) and
// ARIA_BENCH_CHROMIUM (the browser both sides drive) set.
package ariabench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"text/template"
	"time"
	"unicode/utf8"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"

	"wright/browser/aria"
)

// pageDirs are searched in order for a page's file.
var pageDirs = []string{"pages", filepath.Join("..", "..", "..", "browser", "aria", "testdata")}

// pages compared: the aria package's fixtures and the richer pages here.
var pages = []string{
	"form.html", "headings.html", "links.html", "table.html", "shadow.html", "iframes.html",
	"wrappers.html", "whitespace.html", "interactive.html", "medium.html",
	"article.html", "app.html", "checkout.html", "search.html",
}

func TestPeerComparison(t *testing.T) {
	nodeDir, chromium := os.Getenv("ARIA_BENCH_NODE_DIR"), os.Getenv("ARIA_BENCH_CHROMIUM")
	if nodeDir == "" || chromium == "" {
		t.Skip("set ARIA_BENCH_NODE_DIR and ARIA_BENCH_CHROMIUM (run.sh does)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	srv := httptest.NewServer(http.HandlerFunc(servePage))
	defer srv.Close()
	urls := make([]string, len(pages))
	for i, p := range pages {
		urls[i] = srv.URL + "/" + p
	}

	theirs, err := playwrightSnapshots(ctx, nodeDir, chromium, urls)
	if err != nil {
		t.Fatal(err)
	}

	dataDir := t.TempDir()
	l := launcher.New().Bin(chromium).Leakless(false).Headless(true).UserDataDir(dataDir).
		Set("no-sandbox").Set("disable-gpu").Set("no-first-run").
		Set("disable-background-networking").Set("disable-component-update").Set("disable-sync")
	u, err := l.Launch()
	if err != nil {
		t.Fatalf("launch chromium: %v", err)
	}
	defer l.Cleanup()
	defer l.Kill()
	browser := rod.New().ControlURL(u).Context(ctx)
	if err := browser.Connect(); err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer browser.Close()
	browser = browser.NoDefaultDevice()

	var table strings.Builder
	table.WriteString("| page | Playwright (role, name) pairs | reproduced | share | identical lines | Playwright chars | ours chars (no refs) | ours chars (with refs) | ours interactive-only | Playwright ai-mode chars |\n")
	table.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var details strings.Builder
	totalPW, totalHit, totalLines, totalSame := 0, 0, 0, 0
	for i, name := range pages {
		page, err := browser.Page(proto.TargetCreateTarget{})
		if err != nil {
			t.Fatalf("page: %v", err)
		}
		if err := page.Navigate(urls[i]); err != nil {
			t.Fatalf("navigate %s: %v", name, err)
		}
		if err := page.WaitLoad(); err != nil {
			t.Fatalf("load %s: %v", name, err)
		}
		plain, err := aria.Snapshot(ctx, page, nil, aria.Options{})
		if err != nil {
			t.Fatalf("snapshot %s: %v", name, err)
		}
		withRefs, err := aria.Snapshot(ctx, page, aria.NewRegistry(), aria.Options{})
		if err != nil {
			t.Fatalf("snapshot %s: %v", name, err)
		}
		interactive, err := aria.Snapshot(ctx, page, aria.NewRegistry(), aria.Options{InteractiveOnly: true})
		if err != nil {
			t.Fatalf("snapshot %s: %v", name, err)
		}
		_ = page.Close()

		pw := theirs[urls[i]]
		want, got := pairs(pw.Body), pairs(plain)
		hit, missing := overlap(want, got)
		n := 0
		for _, c := range want {
			n += c
		}
		totalPW += n
		totalHit += hit
		same, lines := sameLines(pw.Body, plain)
		totalLines += lines
		totalSame += same
		share := "-"
		if n > 0 {
			share = fmt.Sprintf("%.0f%%", 100*float64(hit)/float64(n))
		}
		ai := "-"
		if pw.AI != nil {
			ai = fmt.Sprint(utf8.RuneCountInString(*pw.AI))
		}
		fmt.Fprintf(&table, "| %s | %d | %d | %s | %s | %d | %d | %d | %d | %s |\n", name, n, hit, share, percent(same, lines),
			utf8.RuneCountInString(pw.Body), utf8.RuneCountInString(plain), utf8.RuneCountInString(withRefs),
			utf8.RuneCountInString(interactive), ai)
		if len(missing) > 0 {
			fmt.Fprintf(&details, "%s: not reproduced: %s\n", name, strings.Join(missing, "; "))
		}
		if os.Getenv("ARIA_BENCH_SHOW") != "" {
			fmt.Printf("===== %s (Playwright)\n%s\n===== %s (ours)\n%s\n", name, pw.Body, name, withRefs)
		}
	}
	fmt.Fprintf(&table, "| **all** | %d | %d | %s | %s | | | | | |\n", totalPW, totalHit, percent(totalHit, totalPW), percent(totalSame, totalLines))
	fmt.Print(table.String())
	fmt.Print(details.String())
	if out := os.Getenv("ARIA_BENCH_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(table.String()+"\n"+details.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func percent(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(a)/float64(b))
}

// sameLines counts the lines of theirs (indentation aside) that ours has
// too, as multisets: the stricter measure, where states, values, text and
// /url must match as well.
func sameLines(theirs, ours string) (same, total int) {
	have := map[string]int{}
	for _, l := range strings.Split(ours, "\n") {
		have[strings.TrimLeft(l, " ")]++
	}
	for _, l := range strings.Split(theirs, "\n") {
		l = strings.TrimLeft(l, " ")
		if l == "" {
			continue
		}
		total++
		if have[l] > 0 {
			have[l]--
			same++
		}
	}
	return same, total
}

type pwSnapshot struct {
	Body string  `json:"body"`
	AI   *string `json:"ai"`
}

// playwrightSnapshots runs pw_snapshot.js under node with playwright-core
// from nodeDir.
func playwrightSnapshots(ctx context.Context, nodeDir, chromium string, urls []string) (map[string]pwSnapshot, error) {
	in, err := json.Marshal(urls)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "node", "pw_snapshot.js")
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(nodeDir, "node_modules"), "ARIA_BENCH_CHROMIUM="+chromium)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("pw_snapshot.js: %w: %s", err, stderr.String())
	}
	res := map[string]pwSnapshot{}
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("pw_snapshot.js output: %w", err)
	}
	return res, nil
}

// servePage serves a page from pageDirs; {{.Cross}} in it is this server
// under another host name (another site, for cross-origin iframes).
func servePage(w http.ResponseWriter, r *http.Request) {
	name := filepath.Clean(strings.TrimPrefix(r.URL.Path, "/"))
	var body []byte
	var err error
	for _, dir := range pageDirs {
		if body, err = os.ReadFile(filepath.Join(dir, name)); err == nil {
			break
		}
	}
	if err != nil {
		http.NotFound(w, r)
		return
	}
	_, port, _ := net.SplitHostPort(r.Host)
	cross := "http://localhost:" + port
	if strings.HasPrefix(r.Host, "localhost") {
		cross = "http://127.0.0.1:" + port
	}
	tpl, err := template.New(name).Parse(string(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := tpl.Execute(&buf, map[string]string{"Cross": cross}); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(buf.Bytes())
}

type pair struct{ role, name string }

// pairs reads the (role, name) of every element line of a snapshot; text
// lines and /url-style properties are not elements.
func pairs(snapshot string) map[pair]int {
	out := map[pair]int{}
	for _, l := range strings.Split(snapshot, "\n") {
		l = strings.TrimLeft(l, " ")
		if !strings.HasPrefix(l, "- ") {
			continue
		}
		key := keyOf(l[2:])
		role, rest, _ := strings.Cut(key, " ")
		if role == "" || role == "text" || strings.HasPrefix(role, "/") || strings.HasPrefix(role, "text:") {
			continue
		}
		role = strings.TrimSuffix(role, ":")
		name := ""
		if strings.HasPrefix(rest, `"`) {
			if err := json.NewDecoder(strings.NewReader(rest)).Decode(&name); err != nil {
				name = ""
			}
		}
		out[pair{role, name}]++
	}
	return out
}

// keyOf returns the YAML key of "key", "key: value" or "'quoted key'...".
func keyOf(s string) string {
	if strings.HasPrefix(s, "'") {
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			if s[i] == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				break
			}
			b.WriteByte(s[i])
		}
		return b.String()
	}
	// The key ends at the first ": " or final ":" outside a quoted name.
	inQuote := false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && inQuote:
			i++
		case s[i] == '"':
			inQuote = !inQuote
		case s[i] == ':' && !inQuote && (i+1 == len(s) || s[i+1] == ' '):
			return s[:i]
		}
	}
	return s
}

// overlap counts the pairs of want also in got (as multisets) and lists
// the ones missing.
func overlap(want, got map[pair]int) (int, []string) {
	hit := 0
	var missing []string
	for p, n := range want {
		m := got[p]
		if m > n {
			m = n
		}
		hit += m
		if m < n {
			missing = append(missing, fmt.Sprintf("%s %q x%d", p.role, p.name, n-m))
		}
	}
	sort.Strings(missing)
	return hit, missing
}
