package bench

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"wright/run/config"
)

func TestReadEndpoints(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "grid.txt")
	os.WriteFile(file, []byte("# the grid\nws://b:9222/devtools/browser/x  # rack 1\n\n  http://c:9222\n"), 0o644)
	got, err := ReadEndpoints([]string{"ws://a:1"}, file)
	if err != nil {
		t.Fatal(err)
	}
	if want := "ws://a:1 ws://b:9222/devtools/browser/x http://c:9222"; strings.Join(got, " ") != want {
		t.Errorf("endpoints %v", got)
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("ws://ok:1\nftp://x\n"), 0o644)
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, []byte("# nothing yet\n"), 0o644)
	for _, c := range []struct {
		list []string
		file string
		want string
	}{
		{nil, bad, "bad.txt:2"},
		{nil, empty, "lists no endpoint"},
		{nil, filepath.Join(dir, "missing.txt"), "no such file"},
		{[]string{"grid-1:9222"}, "", "cdp_urls[0]"},
	} {
		if _, err := ReadEndpoints(c.list, c.file); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadEndpoints(%v, %s): %v, want %q", c.list, c.file, err, c.want)
		}
	}
}

// TestEndpointsByWorker: worker i takes endpoint i-1 (mod n), and a dead
// endpoint's workers move to the next live one until none is left.
func TestEndpointsByWorker(t *testing.T) {
	dead := map[string]bool{}
	e := NewEndpoints([]string{"ws://a:1", "ws://b:1", "ws://c:1"})
	e.Probe = func(_ context.Context, u string) error {
		if dead[u] {
			return errors.New("refused")
		}
		return nil
	}
	pick := func(w int) string {
		_, u, err := e.For(w)
		if err != nil {
			return err.Error()
		}
		return u[5:6]
	}
	var got []string
	for w := 1; w <= 4; w++ {
		got = append(got, pick(w))
	}
	if strings.Join(got, "") != "abca" {
		t.Errorf("by worker: %v", got)
	}
	dead["ws://b:1"] = true
	if err := e.Check(context.Background(), 1); err == nil || e.Live() != 2 {
		t.Fatalf("b not taken out: %v, %d live", err, e.Live())
	}
	dead["ws://b:1"] = false // out of rotation for good, even if it answers again
	if got := pick(2) + pick(1) + pick(3); got != "cac" {
		t.Errorf("after b died: %s", got)
	}
	dead["ws://a:1"], dead["ws://c:1"] = true, true
	e.Check(context.Background(), 0)
	e.Check(context.Background(), 2)
	if _, _, err := e.For(1); !errors.Is(err, ErrNoEndpoint) {
		t.Errorf("all dead: %v", err)
	}
}

func TestProbeEndpoint(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/json/version" {
			http.NotFound(w, r)
		}
	}))
	ctx := context.Background()
	host := strings.TrimPrefix(srv.URL, "http://")
	if err := probeEndpoint(ctx, srv.URL); err != nil {
		t.Errorf("http: %v", err)
	}
	if err := probeEndpoint(ctx, "ws://"+host+"/devtools/browser/x"); err != nil {
		t.Errorf("ws: %v", err)
	}
	srv.Close()
	for _, u := range []string{srv.URL, "ws://" + host + "/devtools/browser/x"} {
		if err := probeEndpoint(ctx, u); err == nil {
			t.Errorf("%s answered after its server closed", u)
		}
	}
}

// TestExecutorWithNoEndpointLeft: when no endpoint answers, the attempt
// does not run and the bench stops (every later attempt would fail alike).
func TestExecutorWithNoEndpointLeft(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	dead := srv.URL
	srv.Close()
	var warned []string
	x := &HarnessExecutor{
		Config: func(Task, int) (*config.Config, error) {
			return &config.Config{Browser: config.Browser{CDPURLs: []string{dead, strings.Replace(dead, "http", "ws", 1)}}}, nil
		},
		Warn: func(m string) { warned = append(warned, m) },
	}
	_, err := x.Run(context.Background(), Attempt{Task: Task{ID: "t"}, N: 1, Worker: 1, RunDir: t.TempDir()})
	var fatal *FatalError
	if !errors.As(err, &fatal) || !errors.Is(err, ErrNoEndpoint) {
		t.Fatalf("err %v, want a fatal ErrNoEndpoint", err)
	}
	if len(warned) != 2 || !strings.Contains(warned[1], "0 of 2 left") {
		t.Errorf("warnings %q", warned)
	}
}
