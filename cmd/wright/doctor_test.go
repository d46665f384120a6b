package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
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

// TestDoctorAgreesWithRun: recorded replies are a clean keyless result
// with no request to any endpoint; an endpoint answering 404 on its probe
// path fails with a fix naming the base URL; a key missing for an endpoint
// off this machine fails in the words `wright run` refuses it with.
func TestDoctorAgreesWithRun(t *testing.T) {
	var asked atomic.Int32
	notAPI := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.NotFound(w, r)
	}))
	defer notAPI.Close()
	dir := t.TempDir()
	env := append(withoutVars(os.Environ(), []string{"OPENAI_API_KEY", "OPENAI_BASE_URL"}), "OPENAI_BASE_URL="+notAPI.URL+"/v1")

	r := wrightEnv(t, dir, env, "doctor", "--model", recordedModel)
	if out := r.stdout.String(); r.code != 0 || !strings.Contains(out, "ok   endpoint  builtin:recorded") || asked.Load() != 0 {
		t.Errorf("doctor --model %s: exit %d, %d requests to the endpoint:\n%s", recordedModel, r.code, asked.Load(), out)
	}

	r = wrightEnv(t, dir, env, "doctor")
	if out := r.stdout.String(); r.code != 1 || !strings.Contains(out, "FAIL endpoint  "+notAPI.URL+"/v1 answered HTTP 404") ||
		!strings.Contains(out, "fix: check model.base_url ("+notAPI.URL+"/v1)") || asked.Load() != 1 {
		t.Errorf("doctor on an endpoint that answers 404: exit %d:\n%s", r.code, out)
	}

	// 192.0.2.0/24 is TEST-NET-1: never this machine, and never asked.
	offMachine := []string{"--base-url", "http://192.0.2.1/v1"}
	runSays := wrightEnv(t, dir, env, append([]string{"run", "-t", "x", "--start-url", "http://127.0.0.1:9/", "-o", filepath.Join(dir, "runs")}, offMachine...)...).stderr.String()
	_, why, _ := strings.Cut(strings.TrimSpace(runSays), "wright: ")
	r = wrightEnv(t, dir, env, append([]string{"doctor"}, offMachine...)...)
	if out := r.stdout.String(); why == "" || r.code != 1 || !strings.Contains(out, "FAIL endpoint  "+why) {
		t.Errorf("run says %q; doctor (exit %d) says:\n%s", runSays, r.code, out)
	}
}
