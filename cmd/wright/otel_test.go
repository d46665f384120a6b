package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"wright/model"
	"wright/model/modeltest"
)

// The trace tests send real runs' spans to a real OTLP backend (Jaeger's
// all-in-one, pinned in deploy/jaeger) and read them back through its query
// API.

const jaegerVersion = "v1.76.0"

// jaegerBinary finds the pinned Jaeger, building it once when it is missing
// (`make test` builds it first: it takes minutes on two cores).
func jaegerBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("WRIGHT_JAEGER"); p != "" {
		return p
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no cache directory for the Jaeger binary (%v): set WRIGHT_JAEGER", err)
	}
	bin := filepath.Join(cache, "wright", "jaeger-"+jaegerVersion, "jaeger")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	if testing.Short() {
		t.Skip("-short: the Jaeger binary is not built (make jaeger builds it)")
	}
	t.Logf("building Jaeger %s into %s (once)", jaegerVersion, bin)
	cmd := exec.Command("go", "build", "-o", bin, "github.com/jaegertracing/jaeger/cmd/jaeger")
	cmd.Dir = filepath.Join("..", "..", "deploy", "jaeger")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build jaeger: %v\n%s", err, out)
	}
	return bin
}

type jaeger struct{ otlp, query string }

func otelPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startJaeger runs Jaeger on loopback ports of its own with in-memory
// storage, and stops it when the test ends.
func startJaeger(t *testing.T) *jaeger {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the trace test runs where CI runs: Linux")
	}
	bin := jaegerBinary(t)
	otlp, query, grpcQuery := otelPort(t), otelPort(t), otelPort(t)
	conf := fmt.Sprintf(`service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      mem:
        memory:
          max_traces: 1000
  jaeger_query:
    storage:
      traces: mem
    http:
      endpoint: 127.0.0.1:%d
    grpc:
      endpoint: 127.0.0.1:%d
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: mem
`, query, grpcQuery, otlp)
	path := filepath.Join(t.TempDir(), "jaeger.yaml")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	cmd := exec.Command(bin, "--config", path)
	// Jaeger's own telemetry would go to the default collector address.
	cmd.Env = append(os.Environ(), "OTEL_SDK_DISABLED=true", "OTEL_TRACES_EXPORTER=none")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("jaeger's log:\n%s", logs.String())
		}
	})
	j := &jaeger{otlp: fmt.Sprintf("http://127.0.0.1:%d", otlp), query: fmt.Sprintf("http://127.0.0.1:%d", query)}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(j.query + "/api/services")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("jaeger did not answer in 60 s: %v\n%s", err, logs.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The OTLP receiver may start after the query server.
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", otlp), time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("jaeger's OTLP receiver did not start: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return j
}

type jTag struct {
	Key   string `json:"key"`
	Type  string `json:"type"`
	Value any    `json:"value"`
}

type jSpan struct {
	SpanID     string `json:"spanID"`
	Operation  string `json:"operationName"`
	References []struct {
		RefType string `json:"refType"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	Tags []jTag `json:"tags"`
}

func (s jSpan) parent() string {
	for _, r := range s.References {
		if r.RefType == "CHILD_OF" {
			return r.SpanID
		}
	}
	return ""
}

func (s jSpan) tag(key string) any {
	for _, t := range s.Tags {
		if t.Key == key {
			return t.Value
		}
	}
	return nil
}

// num reads a numeric tag (Jaeger returns int64 tags as JSON numbers).
func (s jSpan) num(key string) int {
	f, _ := s.tag(key).(float64)
	return int(f)
}

type jTrace struct {
	TraceID string  `json:"traceID"`
	Spans   []jSpan `json:"spans"`
}

// traces reads back the service's traces once the root span (the run's,
// which ends last) is there, and returns them with the raw answer.
func (j *jaeger) traces(t *testing.T, want int) ([]jTrace, []byte) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(j.query + "/api/traces?service=wright&limit=50&lookback=1h")
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		body.ReadFrom(resp.Body)
		resp.Body.Close()
		var out struct {
			Data []jTrace `json:"data"`
		}
		if err := json.Unmarshal(body.Bytes(), &out); err != nil {
			t.Fatalf("jaeger's answer: %v\n%s", err, body.String())
		}
		roots := 0
		for _, tr := range out.Data {
			for _, s := range tr.Spans {
				if s.parent() == "" && s.tag("wright.exit_status") != nil {
					roots++
				}
			}
		}
		if roots >= want {
			return out.Data, body.Bytes()
		}
		if time.Now().After(deadline) {
			t.Fatalf("jaeger holds %d finished runs after 30 s, want %d:\n%s", roots, want, body.String())
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func readResult(t *testing.T, runDir string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(runDir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// The demo's whole run as one trace: the run, its steps, each step's model
// call and its command or gate check, the judge's calls, with the GenAI
// attributes and token counts that add up to result.json's.
func TestOtelDemoTraceInJaeger(t *testing.T) {
	j := startJaeger(t)
	out := t.TempDir()
	r := wright(t, "demo", "--otel="+j.otlp, "-o", out)
	if r.code != 0 {
		t.Fatalf("demo exit %d\n%s", r.code, r.stderr.String())
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "*", "result.json"))
	if len(dirs) != 1 {
		t.Fatalf("run folders: %v", dirs)
	}
	res := readResult(t, filepath.Dir(dirs[0]))
	traces, _ := j.traces(t, 1)
	if len(traces) != 1 {
		t.Fatalf("%d traces, want the run's one", len(traces))
	}
	spans := traces[0].Spans
	byID := map[string]jSpan{}
	children := map[string][]jSpan{}
	var root jSpan
	for _, s := range spans {
		byID[s.SpanID] = s
		if p := s.parent(); p == "" {
			if root.SpanID != "" {
				t.Fatalf("two roots: %s and %s", root.Operation, s.Operation)
			}
			root = s
		} else {
			children[p] = append(children[p], s)
		}
	}
	for _, s := range spans {
		if p := s.parent(); p != "" && byID[p].SpanID == "" {
			t.Errorf("span %s has a parent %s not in the trace", s.Operation, p)
		}
	}
	usage := res["usage"].(map[string]any)
	if root.Operation != "invoke_agent wright" || root.tag("gen_ai.operation.name") != "invoke_agent" ||
		root.tag("wright.exit_status") != "Submitted" || root.tag("wright.task_id") != res["task_id"] ||
		root.num("wright.gate.label") != 1 || root.num("gen_ai.usage.input_tokens") != int(usage["prompt_tokens"].(float64)) ||
		root.num("gen_ai.usage.output_tokens") != int(usage["completion_tokens"].(float64)) {
		t.Errorf("root span %s %v, result %v", root.Operation, root.Tags, res)
	}
	steps := children[root.SpanID]
	var stepSpans []jSpan
	for _, s := range steps {
		if strings.HasPrefix(s.Operation, "step ") {
			stepSpans = append(stepSpans, s)
		}
	}
	if calls := int(res["model_calls"].(float64)); len(stepSpans) != calls {
		t.Errorf("%d step spans, %d model calls", len(stepSpans), calls)
	}
	agentIn, tools, gates := 0, 0, 0
	for _, st := range stepSpans {
		var chats []jSpan
		for _, c := range children[st.SpanID] {
			switch {
			case strings.HasPrefix(c.Operation, "chat "):
				chats = append(chats, c)
			case c.Operation == "execute_tool bash_command":
				tools++
				if c.tag("gen_ai.tool.name") != "bash_command" || c.tag("wright.command") == nil || c.num("wright.step") != st.num("wright.step") {
					t.Errorf("tool span %v under %s", c.Tags, st.Operation)
				}
			case c.Operation == "execute_tool gate":
				gates++
				if c.num("wright.gate.label") != 1 || c.tag("wright.gate.pass") != true {
					t.Errorf("gate span %v", c.Tags)
				}
			}
		}
		if len(chats) != 1 {
			t.Fatalf("%s has %d model calls, want 1", st.Operation, len(chats))
		}
		c := chats[0]
		if c.tag("gen_ai.operation.name") != "chat" || c.tag("gen_ai.provider.name") != "replay" || c.tag("gen_ai.output.type") != "json" ||
			c.tag("gen_ai.usage.input_tokens") == nil {
			t.Errorf("model call span %v", c.Tags)
		}
		agentIn += c.num("gen_ai.usage.input_tokens")
	}
	if agentIn != int(usage["prompt_tokens"].(float64)) {
		t.Errorf("the steps' model calls sent %d prompt tokens, result.json says %v", agentIn, usage["prompt_tokens"])
	}
	if tools == 0 || gates != 1 {
		t.Errorf("%d tool spans and %d gate spans", tools, gates)
	}
	// The judge's calls: text-output chat spans inside the run, whose
	// tokens are the judge's usage in result.json (none for the demo's
	// recorded judge, which reports no usage).
	judgeIn, judgeCalls := 0, 0
	for _, s := range spans {
		if s.tag("gen_ai.output.type") == "text" {
			judgeCalls++
			judgeIn += s.num("gen_ai.usage.input_tokens")
			for p := s.parent(); ; p = byID[p].parent() {
				if p == "" {
					t.Errorf("judge call %s is not inside the run", s.SpanID)
					break
				}
				if p == root.SpanID {
					break
				}
			}
		}
	}
	judgeWant := 0
	if ju, ok := res["judge_usage"].(map[string]any); ok {
		judgeWant = int(ju["prompt_tokens"].(float64))
	}
	if judgeCalls < 2 || judgeIn != judgeWant {
		t.Errorf("%d judge calls sent %d prompt tokens; result.json's judge_usage says %d", judgeCalls, judgeIn, judgeWant)
	}
}

// A scripted run's trace, exported through the standard variables: the
// endpoint's token counts on each model call and in the run's total; what
// a trace holds went through the run's redaction; and the exporter's
// credentials (OTEL_EXPORTER_OTLP_HEADERS) reach neither a span nor the
// model's shell.
func TestOtelRunTraceKeepsSecretsOut(t *testing.T) {
	j := startJaeger(t)
	const secret = "s3cr3t-Tr4ce-Value"
	const header = "hdr-Cred-0451"
	srv := modeltest.New(t,
		// The pattern is split so that the command itself does not hold it.
		modeltest.Bash("echo the value", "echo "+secret+"; echo \"count=$(env | grep -c '"+header[:6]+"''"+header[6:]+"')\"").WithCache(60, 0),
		modeltest.Done(model.FieldBash, "done", "finished"),
	)
	dir := filepath.Join(t.TempDir(), "run")
	cfg := filepath.Join(t.TempDir(), "secrets.yaml")
	os.WriteFile(cfg, []byte("secrets:\n  pw: {env: WRIGHT_TEST_TRACE_PW, domains: [127.0.0.1]}\n"), 0o644)
	cmd := exec.Command(wrightBin, runArgs(t, srv, dir, "-c", cfg, "--otel")...)
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY="+testKey, "WRIGHT_TEST_TRACE_PW="+secret,
		"OTEL_EXPORTER_OTLP_ENDPOINT="+j.otlp, "OTEL_EXPORTER_OTLP_HEADERS=x-trace-auth="+header)
	cmd.Dir = t.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	traces, raw := j.traces(t, 1)
	for _, v := range []string{secret, testKey, header} {
		if bytes.Contains(raw, []byte(v)) {
			t.Errorf("the trace holds %q", v)
		}
	}
	if len(traces) != 1 {
		t.Fatalf("%d traces", len(traces))
	}
	res := readResult(t, dir)
	var command string
	chats, chatIn, chatOut, chatCached := 0, 0, 0, 0
	var root jSpan
	for _, s := range traces[0].Spans {
		switch {
		case s.Operation == "execute_tool bash_command":
			command, _ = s.tag("wright.command").(string)
		case s.Operation == "chat scripted":
			chats++
			chatIn += s.num("gen_ai.usage.input_tokens")
			chatOut += s.num("gen_ai.usage.output_tokens")
			chatCached += s.num("gen_ai.usage.cache_read.input_tokens")
			if s.tag("server.address") != "127.0.0.1" || s.tag("gen_ai.provider.name") != "openai" {
				t.Errorf("model call span %v", s.Tags)
			}
		case s.parent() == "":
			root = s
		}
	}
	if !strings.HasPrefix(command, "echo <secret>pw</secret>;") {
		t.Errorf("the command span holds %q, want the redacted command", command)
	}
	usage := res["usage"].(map[string]any)
	if chats != 2 || chatIn == 0 || chatIn != int(usage["prompt_tokens"].(float64)) || chatOut != int(usage["completion_tokens"].(float64)) ||
		root.num("gen_ai.usage.input_tokens") != chatIn || root.num("wright.model_calls") != 2 ||
		chatCached != 60 || root.num("gen_ai.usage.cache_read.input_tokens") != 60 || int(usage["cached_tokens"].(float64)) != 60 {
		t.Errorf("%d model calls with %d/%d tokens, root %v; result.json %v", chats, chatIn, chatOut, root.Tags, usage)
	}
	if len(srv.Requests()) < 2 {
		t.Fatal("the model was not asked twice")
	}
	if body := string(srv.Requests()[1].Body); !strings.Contains(body, "count=0") || strings.Contains(body, header) {
		t.Errorf("the shell saw the exporter's headers:\n%s", body)
	}
}

// A bad --otel value is a usage error before anything runs.
func TestOtelBadEndpoint(t *testing.T) {
	r := wright(t, "run", "-t", "x", "--otel=ftp://nowhere")
	if r.code != 2 || !strings.Contains(r.stderr.String(), "--otel=ftp://nowhere is not an http(s) URL") {
		t.Errorf("exit %d: %s", r.code, r.stderr.String())
	}
}
