package tracing

import (
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
