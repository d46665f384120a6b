package tracing

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestEnabled(t *testing.T) {
	cases := []struct {
		name string
		o    Options
		want bool
	}{
		{"nothing asked", Options{Getenv: env(nil)}, false},
		{"--otel", Options{Requested: true, Getenv: env(nil)}, true},
		{"an endpoint in the environment", Options{Getenv: env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"})}, true},
		{"a traces endpoint", Options{Getenv: env(map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"})}, true},
		{"OTEL_TRACES_EXPORTER=otlp", Options{Getenv: env(map[string]string{"OTEL_TRACES_EXPORTER": "otlp"})}, true},
		{"OTEL_TRACES_EXPORTER=none wins", Options{Requested: true, Getenv: env(map[string]string{"OTEL_TRACES_EXPORTER": "none"})}, false},
		{"OTEL_SDK_DISABLED wins", Options{Requested: true, Getenv: env(map[string]string{"OTEL_SDK_DISABLED": "true"})}, false},
	}
	for _, c := range cases {
		if got := c.o.Enabled(); got != c.want {
			t.Errorf("%s: Enabled = %v", c.name, got)
		}
	}
}

func TestHeaders(t *testing.T) {
	o := Options{Getenv: env(map[string]string{
		"OTEL_EXPORTER_OTLP_HEADERS":        "Authorization=Basic%20cGs6c2s=, x-a=1",
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "x-a=2",
	})}
	h, err := o.headers()
	if err != nil || h["Authorization"] != "Basic cGs6c2s=" || h["x-a"] != "2" {
		t.Errorf("headers = %v, %v", h, err)
	}
	o = Options{Getenv: env(map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "Authorization Bearer sk-visible"})}
	if _, err := o.headers(); err == nil || strings.Contains(err.Error(), "sk-visible") {
		t.Errorf("a malformed header: %v (must not show the value)", err)
	}
}

func TestEndpointURL(t *testing.T) {
	cases := map[string]string{
		"http://collector:4318":                                "http://collector:4318/v1/traces",
		"http://collector:4318/":                               "http://collector:4318/v1/traces",
		"https://cloud.langfuse.com/api/public/otel":           "https://cloud.langfuse.com/api/public/otel/v1/traces",
		"https://cloud.langfuse.com/api/public/otel/v1/traces": "https://cloud.langfuse.com/api/public/otel/v1/traces",
	}
	for in, want := range cases {
		if got, err := endpointURL(in, "/v1/traces"); err != nil || got != want {
			t.Errorf("endpointURL(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"ftp://x", "collector:4318", ""} {
		if _, err := endpointURL(bad, "/v1/traces"); err == nil {
			t.Errorf("endpointURL(%q) took it", bad)
		}
	}
}

func TestCut(t *testing.T) {
	if got := Cut("héllo", 2); got != "h…" {
		t.Errorf("Cut = %q", got)
	}
	if got := Cut("abc", 5); got != "abc" {
		t.Errorf("Cut = %q", got)
	}
}

// TestDefaultIsPlainHTTPToALocalCollector: --otel with no URL and no
// OTEL_EXPORTER_OTLP_* variable exports to a collector on localhost:4318
// over plain HTTP, as a local Jaeger or collector listens (the SDK's own
// default is https, which they refuse). The collector here is a real HTTP
// server on that port; the test skips only when the port is taken.
func TestDefaultIsPlainHTTPToALocalCollector(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:4318")
	if err != nil {
		t.Skipf("port 4318 is taken on this machine (%v): the default endpoint cannot be checked here", err)
	}
	got := make(chan string, 8)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Method + " " + r.URL.Path + " " + r.Header.Get("Content-Type")
		w.WriteHeader(http.StatusOK)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	if u, err := (Options{Getenv: env(nil)}).endpoint("/v1/traces", DefaultHTTPEndpoint); err != nil || u != DefaultHTTPEndpoint {
		t.Fatalf("endpoint = %q, %v", u, err)
	}
	var warn strings.Builder
	shutdown, err := Start(context.Background(), Options{Requested: true, Getenv: env(nil), Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	_, span := Tracer().Start(context.Background(), "probe")
	span.End()
	if err := shutdown(context.Background()); err != nil {
		t.Fatalf("flush to the local collector: %v (warnings: %s)", err, warn.String())
	}
	select {
	case req := <-got:
		if req != "POST /v1/traces application/x-protobuf" {
			t.Fatalf("the collector got %q", req)
		}
	default:
		t.Fatal("the local collector got no export")
	}
}

// TestExportErrorsAreWrightWarningsOnce: what the exporter reports goes out
// as "wright: warning: otel: ..." lines, a repeated error once.
func TestExportErrorsAreWrightWarningsOnce(t *testing.T) {
	var out strings.Builder
	h := warnOnce(&out)
	for i := 0; i < 3; i++ {
		h.Handle(errors.New("traces export: connection refused"))
	}
	h.Handle(errors.New("another"))
	want := "wright: warning: otel: traces export: connection refused\nwright: warning: otel: another\n"
	if out.String() != want {
		t.Fatalf("warnings = %q, want %q", out.String(), want)
	}
}

// TestEnvironmentEndpointWins: a standard endpoint variable is the SDK's
// to read (with its scheme); wright then gives the exporter no URL.
func TestEnvironmentEndpointWins(t *testing.T) {
	o := Options{Getenv: env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:4318"})}
	if u, err := o.endpoint("/v1/traces", DefaultHTTPEndpoint); err != nil || u != "" {
		t.Fatalf("endpoint = %q, %v: the variable should decide", u, err)
	}
	o.Endpoint = "http://mine:4318"
	if u, _ := o.endpoint("/v1/traces", DefaultHTTPEndpoint); u != "http://mine:4318/v1/traces" {
		t.Fatalf("--otel=URL should win: %q", u)
	}
}
