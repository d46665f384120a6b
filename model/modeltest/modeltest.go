// Package modeltest is the project's one stand-in: an OpenAI-compatible chat
// endpoint, started inside a test with httptest, that answers from a script.
//
//	srv := modeltest.New(t,
//		modeltest.Status(500),                       // a transient failure, retried
//		modeltest.Bash("look around", "ls -la"),     // an action in workspace mode
//		modeltest.Done("bash_command", "all good", "the answer"),
//	)
//	client := srv.Client(t)        // or model.New(srv.Config(), nil) after edits
//	...
//	srv.Requests()[1].Chat().Messages // what the model was shown
//
// It serves every wire API of model's provider table that has a Wire here,
// each in its documented shape at its Provider's Path: for the three wright
// ships, POST /v1/chat/completions (and /chat/completions), OpenAI's
// /v1/responses and Anthropic's /v1/messages (chat.go, responses.go,
// anthropic.go); a test adds one with RegisterWire. One script answers
// whichever is asked (ConfigFor picks the API). It records every request,
// and fails the test if asked for more responses than the script holds (end
// the script with .Forever() for open-ended loops). Tests inside
// package model itself cannot import it (an import cycle); they use it from
// package model_test.
package modeltest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"wright/model"
)

// Token counts a scripted reply reports unless WithUsage says otherwise.
const (
	DefaultPromptTokens     = 100
	DefaultCompletionTokens = 20
)

// Response is one scripted answer. Build it with Reply, Status, Error, Raw,
// Hangup, Bash, Python, Done or JSON, and adjust it with the With* methods.
type Response struct {
	status       int
	body         *string // sent verbatim when set
	errMessage   *string // an error body in the asked API's shape
	errType      string  // its type, when not the status's usual one
	content      string
	refusal      bool
	finishReason string
	usage        *[2]int
	cached       int
	cacheWrite   int
	reasoning    int
	header       http.Header
	hangup       bool
	delay        time.Duration
	forever      bool
	fn           func(Request) Response
}

// Reply is a 200 chat completion whose assistant message is content.
func Reply(content string) Response {
	return Response{status: http.StatusOK, content: content}
}

// JSON is a Reply whose content is v marshalled to JSON.
func JSON(v any) Response {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("modeltest.JSON: %v", err))
	}
	return Reply(string(b))
}

// Bash is a workspace-mode action: {"thought", "bash_command", "done": false, "final_response": ""}.
func Bash(thought, command string) Response {
	return action("bash_command", thought, command, false, "")
}

// Python is a live-browser-mode action with python_code.
func Python(thought, code string) Response {
	return action("python_code", thought, code, false, "")
}

// Done is a finishing action: done true, an empty action field, and the
// final response.
func Done(field, thought, final string) Response {
	return action(field, thought, "", true, final)
}

func action(field, thought, code string, done bool, final string) Response {
	// Field order as the model is asked to write it.
	var b bytes.Buffer
	enc := func(v any) {
		out, _ := json.Marshal(v)
		b.Write(out)
	}
	b.WriteString(`{"thought":`)
	enc(thought)
	b.WriteString(`,`)
	enc(field)
	b.WriteString(`:`)
	enc(code)
	b.WriteString(`,"done":`)
	enc(done)
	b.WriteString(`,"final_response":`)
	enc(final)
	b.WriteString(`}`)
	return Reply(b.String())
}

// Func answers from f, called with each request it serves (concurrently
// when requests are): for replies that depend on the request, or tests that
// watch requests in flight. Combine with Forever to serve every request.
func Func(f func(Request) Response) Response {
	return Response{fn: f}
}

// Status is an error status with an OpenAI-style error body.
func Status(code int) Response {
	return Error(code, fmt.Sprintf("modeltest: scripted status %d", code))
}

// Error is an error status whose body carries message, in the shape of the
// API asked: OpenAI's {"error": {...}} or Anthropic's {"type": "error",
// "error": {...}}.
func Error(code int, message string) Response {
	return Response{status: code, errMessage: &message}
}

// Overloaded is Anthropic's 529 overloaded_error (the same status, in
// OpenAI's shape, on the other APIs).
func Overloaded() Response {
	r := Error(529, "Overloaded")
	r.errType = "overloaded_error"
	return r
}

// Refusal is a 200 whose answer is a refusal with the given text, as each
// API reports one: chat's message.refusal, a Responses refusal part, an
// Anthropic stop_reason "refusal" (whose text is the content).
func Refusal(text string) Response {
	return Response{status: http.StatusOK, content: text, refusal: true}
}

func errorType(code int) string {
	switch {
	case code == http.StatusTooManyRequests:
		return "rate_limit_error"
	case code == http.StatusUnauthorized:
		return "authentication_error"
	case code == 529:
		return "overloaded_error"
	case code >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

// Raw sends body verbatim with the status.
func Raw(status int, body string) Response {
	return Response{status: status, body: &body}
}

// Hangup closes the connection without answering (a connection reset as the
// client sees it).
func Hangup() Response {
	return Response{hangup: true}
}

// WithHeader adds a response header (Retry-After, ...).
func (r Response) WithHeader(key, value string) Response {
	h := r.header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Add(key, value)
	r.header = h
	return r
}

// WithUsage sets the token counts the reply reports.
func (r Response) WithUsage(prompt, completion int) Response {
	r.usage = &[2]int{prompt, completion}
	return r
}

// WithCache sets the prompt tokens the reply reports as read from the
// provider's cache and as written to it (Anthropic's
// cache_creation_input_tokens; OpenAI has no writes and ignores it).
func (r Response) WithCache(read, write int) Response {
	r.cached, r.cacheWrite = read, write
	return r
}

// WithReasoning sets the reasoning (thinking) tokens among the completion
// tokens.
func (r Response) WithReasoning(n int) Response {
	r.reasoning = n
	return r
}

// WithFinishReason sets the choice's finish_reason ("length", ...).
func (r Response) WithFinishReason(reason string) Response {
	r.finishReason = reason
	return r
}

// After delays the answer by d (or until the client gives up), to exercise
// timeouts.
func (r Response) After(d time.Duration) Response {
	r.delay = d
	return r
}

// Forever serves this response for every request from here on.
func (r Response) Forever() Response {
	r.forever = true
	return r
}

// Request is one request the server received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// ChatRequest is the part of a chat completion request tests look at.
type ChatRequest struct {
	Model               string          `json:"model"`
	Messages            []ChatMessage   `json:"messages"`
	ResponseFormat      json.RawMessage `json:"response_format,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
}

// ChatMessage is one message of a request; Content is a string or a list
// of parts.
type ChatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type part struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

// Text is the message's text: its string content, or its text parts joined
// by newlines.
func (m ChatMessage) Text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []part
	_ = json.Unmarshal(m.Content, &parts)
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// ImageURLs are the URLs (data URLs, for wright) of the message's image
// parts.
func (m ChatMessage) ImageURLs() []string {
	var parts []part
	if json.Unmarshal(m.Content, &parts) != nil {
		return nil
	}
	var urls []string
	for _, p := range parts {
		if p.Type == "image_url" {
			urls = append(urls, p.ImageURL.URL)
		}
	}
	return urls
}

// API is the wire API the request spoke (a model.api value): the
// provider whose Path it went to, else model.DefaultAPI.
func (r Request) API() string {
	path := strings.TrimPrefix(r.Path, "/v1")
	for _, p := range model.Providers() {
		if p.Path == path {
			return p.Name
		}
	}
	return model.DefaultAPI
}

// Chat decodes the body as a chat completion request; a body that is not
// one gives the zero ChatRequest (check Body when that matters).
func (r Request) Chat() ChatRequest {
	var c ChatRequest
	_ = json.Unmarshal(r.Body, &c)
	return c
}

// JSON decodes the body into a generic map, for fields ChatRequest lacks.
func (r Request) JSON() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(r.Body, &m)
	return m
}

// Server is the scripted endpoint. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL to configure as model.base_url; /v1 may be
	// appended or not, both paths are served.
	URL string

	t   testing.TB
	srv *httptest.Server

	mu       sync.Mutex
	script   []Response
	served   int
	requests []Request
}

// New starts a server answering from responses in order; it is closed when
// the test ends.
func New(t testing.TB, responses ...Response) *Server {
	t.Helper()
	s := &Server{t: t, script: append([]Response(nil), responses...)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// NoKeyEnv is the API key variable Config names: it is never set, so a
// developer's real key is never sent to the stand-in (none is needed on
// 127.0.0.1).
const NoKeyEnv = "WRIGHT_MODELTEST_NO_KEY"

// Config is a model config pointing at the server, with retry delays of a
// few milliseconds so scripted failures do not slow the tests.
func (s *Server) Config() model.Config {
	return model.Config{
		Name:      "modeltest-model",
		BaseURL:   s.URL + "/v1",
		APIKeyEnv: NoKeyEnv,
		Retry:     model.Retry{Attempts: 5, InitialDelaySeconds: 0.001, MaxDelaySeconds: 0.01},
	}
}

// ConfigFor is Config for one wire API: a model.api value with a Wire
// here.
func (s *Server) ConfigFor(api string) model.Config {
	c := s.Config()
	c.API = api
	return c
}

// Client is a model client for the server; edits adjust its config first.
// Warnings (such as the unknown price) go to the test log.
func (s *Server) Client(t testing.TB, edits ...func(*model.Config)) model.Client {
	t.Helper()
	cfg := s.Config()
	for _, edit := range edits {
		edit(&cfg)
	}
	c, err := model.New(cfg, func(msg string) { t.Logf("model warning: %s", msg) })
	if err != nil {
		t.Fatalf("modeltest: model.New: %v", err)
	}
	return c
}

// Add appends responses to the script.
func (s *Server) Add(responses ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, responses...)
}

// Requests returns a copy of every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Calls is the number of requests received so far (hung-up ones included).
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// Last is the most recent request; it fails the test when there is none.
func (s *Server) Last() Request {
	s.t.Helper()
	reqs := s.Requests()
	if len(reqs) == 0 {
		s.t.Fatalf("modeltest: no request received")
	}
	return reqs[len(reqs)-1]
}

// next records the request and picks its scripted response.
func (s *Server) next(req Request) (resp Response, ok bool, served int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	if s.served >= len(s.script) {
		if n := len(s.script); n > 0 && s.script[n-1].forever {
			return s.script[n-1], true, s.served
		}
		return Response{}, false, s.served
	}
	r := s.script[s.served]
	if !r.forever {
		s.served++
	}
	return r, true, s.served
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	wire, ok := wireAt(r.URL.Path)
	if !ok || r.Method != http.MethodPost {
		s.t.Errorf("modeltest: unexpected request %s %s", req.Method, r.URL.Path)
		writeJSON(w, http.StatusNotFound, errorBody(fmt.Sprintf("modeltest serves POST %s, not %s %s", servedPaths(), req.Method, r.URL.Path)))
		return
	}
	resp, ok, served := s.next(req)
	if !ok {
		msg := fmt.Sprintf("modeltest: script exhausted: all %d scripted responses were already served", served)
		s.t.Errorf("%s", msg)
		// 400: final for the client, so it does not retry into more errors.
		writeJSON(w, http.StatusBadRequest, errorBody(msg))
		return
	}
	if resp.fn != nil {
		resp = resp.fn(req)
	}
	if resp.delay > 0 {
		select {
		case <-time.After(resp.delay):
		case <-r.Context().Done():
			return
		}
	}
	if resp.hangup {
		hj, ok := w.(http.Hijacker)
		if !ok {
			s.t.Errorf("modeltest: cannot hang up: the connection does not support hijacking")
			return
		}
		conn, _, err := hj.Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	writeResponse(w, wire, req, resp, served)
}

// writeResponse writes resp with its headers as the answer to req: its raw
// body, its error, or a reply in req's wire API whose ids carry served.
func writeResponse(w http.ResponseWriter, wire Wire, req Request, resp Response, served int) {
	for k, vs := range resp.header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if resp.body != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(resp.status)
		_, _ = io.WriteString(w, *resp.body)
		return
	}
	if resp.errMessage != nil {
		typ := resp.errType
		if typ == "" {
			typ = errorType(resp.status)
		}
		writeJSON(w, resp.status, wire.Error(resp.status, typ, *resp.errMessage))
		return
	}
	a := Answer{Served: served, Content: resp.content, Refusal: resp.refusal, FinishReason: resp.finishReason,
		PromptTokens: DefaultPromptTokens, CompletionTokens: DefaultCompletionTokens,
		CachedTokens: resp.cached, CacheWriteTokens: resp.cacheWrite, ReasoningTokens: resp.reasoning}
	if resp.usage != nil {
		a.PromptTokens, a.CompletionTokens = resp.usage[0], resp.usage[1]
	}
	writeJSON(w, resp.status, wire.Reply(req, a))
}

func errorBody(msg string) map[string]any {
	return map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
