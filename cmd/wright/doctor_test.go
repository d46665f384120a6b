package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Doctor asks an Anthropic endpoint in its own way: the key in x-api-key,
// with the version the API requires, and no bearer token.
func TestDoctorAsksAnthropicWithItsHeaders(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" || r.Header.Get("X-Api-Key") != testKey ||
			r.Header.Get("Anthropic-Version") != "2023-06-01" || r.Header.Get("Authorization") != "" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`{"data":[]}`))
	}))
	defer srv.Close()
	// The helper puts the key in OPENAI_API_KEY; point the config at it.
	r := wright(t, "doctor", "-c", "model.api=anthropic", "-c", "model.api_key_env=OPENAI_API_KEY", "-c", "model.base_url="+srv.URL)
	out := r.stdout.String()
	if !strings.Contains(out, "ok   endpoint") || !strings.Contains(out, srv.URL+"/v1 answered HTTP 200") {
		t.Errorf("doctor over anthropic (exit %d):\n%s%s", r.code, out, r.stderr.String())
	}
}
