package model

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"wright/pause"
)

// openAIClient talks to any OpenAI-compatible chat endpoint. It is safe for
// concurrent use (the judge scores screenshots in parallel): after
// construction only the sync.Once fields change.
type openAIClient struct {
	cfg    Config
	key    string // kept only to scrub it from anything we hand back
	api    *openai.Client
	http   *http.Client
	format *openai.ChatCompletionResponseFormat
	// useMaxCompletionTokens: reasoning models (o1, o3, gpt-5, ...) reject
	// max_tokens; go-openai knows which ones.
	useMaxCompletionTokens bool
	// bodyFields are request fields go-openai cannot express, merged into
	// the JSON body (temperature 0 is dropped by its omitempty).
	bodyFields map[string]any

	// reached is set once the endpoint has answered at all: from then on a
	// refused connection is a server restarting, worth the retries; before,
	// it is an address where nothing listens, and waiting out every retry
	// (about 11 s with the defaults) only hides that.
	reached atomic.Bool

	warn      func(string)
	priceOnce sync.Once
	usageOnce sync.Once
	// sleep waits between attempts; tests replace it to observe the waits.
	sleep func(ctx context.Context, d time.Duration) error
}

func newOpenAI(cfg Config, key string, warn func(string)) (*openAIClient, error) {
	c := &openAIClient{cfg: cfg, key: key, warn: warn, sleep: retryWait, http: cfg.HTTPClient}
	if c.http == nil {
		c.http = &http.Client{}
	}
	oc := openai.DefaultConfig(key)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	oc.HTTPClient = &capturingDoer{client: c}
	c.api = openai.NewClientWithConfig(oc)

	switch cfg.ResponseFormat {
	case FormatJSONSchema:
		schema := json.RawMessage(ActionSchema(cfg.ActionField))
		name := "action"
		if len(cfg.Schema) > 0 {
			if !json.Valid(cfg.Schema) {
				return nil, fmt.Errorf("model: the response schema is not valid JSON")
			}
			schema, name = json.RawMessage(cfg.Schema), "response"
		}
		c.format = &openai.ChatCompletionResponseFormat{
			Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: name, Schema: schema, Strict: true},
		}
	case FormatJSONObject:
		c.format = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}

	// Ask go-openai's own validator now, so a model that rejects a setting
	// fails at start rather than on the first call.
	probe := openai.ChatCompletionRequest{Model: cfg.Name, MaxTokens: cfg.MaxTokens}
	if err := openai.NewReasoningValidator().Validate(probe); errors.Is(err, openai.ErrReasoningModelMaxTokensDeprecated) {
		c.useMaxCompletionTokens = true
	}
	if t := cfg.Temperature; t != nil {
		if *t < 0 || *t > 2 {
			return nil, fmt.Errorf("model: temperature %v is outside 0..2", *t)
		}
		probe := c.baseRequest()
		if err := openai.NewReasoningValidator().Validate(probe); err != nil {
			return nil, fmt.Errorf("model: %s does not accept temperature %v (%v): remove model.temperature", cfg.Name, *t, err)
		}
		if *t == 0 {
			c.bodyFields = map[string]any{"temperature": 0}
		}
	}
	return c, nil
}

// ActionSchema is the strict JSON schema of one action turn with the given
// action field.
func ActionSchema(field string) string {
	if field == "" {
		field = FieldBash
	}
	f, _ := json.Marshal(field)
	return `{"type":"object","properties":{` +
		`"thought":{"type":"string"},` +
		string(f) + `:{"type":"string"},` +
		`"done":{"type":"boolean"},` +
		`"final_response":{"type":"string"}},` +
		`"required":["thought",` + string(f) + `,"done","final_response"],` +
		`"additionalProperties":false}`
}

func (c *openAIClient) baseRequest() openai.ChatCompletionRequest {
	req := openai.ChatCompletionRequest{Model: c.cfg.Name, ResponseFormat: c.format}
	if c.useMaxCompletionTokens {
		req.MaxCompletionTokens = c.cfg.MaxTokens
	} else {
		req.MaxTokens = c.cfg.MaxTokens
	}
	if t := c.cfg.Temperature; t != nil {
		req.Temperature = float32(*t)
	}
	return req
}

// Complete sends the conversation and returns the first choice, retrying
// transient failures with capped exponential backoff and jitter.
func (c *openAIClient) Complete(ctx context.Context, messages []Message) (Reply, error) {
	req, patch, err := c.buildRequest(messages)
	if err != nil {
		return Reply{}, err
	}
	reply, err := c.completeWithRetry(ctx, req, patch)
	if err != nil && c.key != "" && strings.Contains(err.Error(), c.key) {
		err = &scrubbedError{msg: strings.ReplaceAll(err.Error(), c.key, "[redacted]"), err: err}
	}
	return reply, err
}

func (c *openAIClient) completeWithRetry(ctx context.Context, req openai.ChatCompletionRequest, patch bodyPatch) (Reply, error) {
	for attempt := 1; ; attempt++ {
		reply, err := c.attempt(ctx, req, patch)
		if err == nil {
			return reply, nil
		}
		if ctx.Err() != nil {
			return Reply{}, fmt.Errorf("model: request abandoned: %w", context.Cause(ctx))
		}
		var t *transientError
		if !errors.As(err, &t) {
			return Reply{}, err
		}
		if attempt >= c.cfg.Retry.Attempts {
			return Reply{}, &RetryError{Attempts: attempt, Err: t.err}
		}
		if err := c.sleep(ctx, c.backoff(attempt, t.retryAfter)); err != nil {
			return Reply{}, fmt.Errorf("model: request abandoned while waiting to retry (%v): %w", t.err, err)
		}
	}
}

// backoff is the wait before attempt n+1: exponential from the initial delay,
// with jitter in [d/2, d], or the endpoint's Retry-After when it gave one;
// both capped by the maximum delay.
func (c *openAIClient) backoff(attempt int, retryAfter time.Duration) time.Duration {
	maxDelay := seconds(c.cfg.Retry.MaxDelaySeconds)
	if retryAfter > 0 {
		return min(retryAfter, maxDelay)
	}
	d := seconds(c.cfg.Retry.InitialDelaySeconds * math.Pow(2, float64(attempt-1)))
	d = min(d, maxDelay)
	if d <= 0 {
		return 0
	}
	return d/2 + rand.N(d/2+1)
}

func seconds(s float64) time.Duration {
	if s > math.MaxInt64/float64(time.Second) {
		return math.MaxInt64
	}
	return time.Duration(s * float64(time.Second))
}

// retryWait waits before a retry; a cancelled run says why it ended.
func retryWait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	if err := pause.For(ctx, d); err != nil {
		return context.Cause(ctx)
	}
	return nil
}

// transientError marks a failure worth another attempt.
type transientError struct {
	err        error
	retryAfter time.Duration
}

func (e *transientError) Error() string { return e.err.Error() }
func (e *transientError) Unwrap() error { return e.err }

// attempt makes one request under the per-request timeout.
func (c *openAIClient) attempt(ctx context.Context, req openai.ChatCompletionRequest, patch bodyPatch) (Reply, error) {
	timeout := seconds(c.cfg.TimeoutSeconds)
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ex := &exchange{patch: patch}
	resp, err := c.api.CreateChatCompletion(context.WithValue(actx, exchangeKey{}, ex), req)
	if err == nil || ex.status != 0 {
		c.reached.Store(true)
	}
	if err != nil {
		return Reply{}, c.classify(ctx, actx, err, ex)
	}
	if len(resp.Choices) == 0 {
		// OpenRouter and some proxies report upstream failures as a 200
		// with an error object and no choices.
		return Reply{}, &transientError{err: fmt.Errorf("endpoint answered without a choice: %s", c.snippet(ex.body))}
	}
	choice := resp.Choices[0]
	u := Usage{
		PromptTokens:     resp.Usage.PromptTokens,
		CompletionTokens: resp.Usage.CompletionTokens,
		TotalTokens:      resp.Usage.TotalTokens,
	}
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	if u.TotalTokens == 0 {
		c.usageOnce.Do(func() {
			c.warn(fmt.Sprintf("the endpoint reports no token usage for model %s: tokens and cost counted as 0", c.cfg.Name))
		})
	}
	if c.cfg.Price.Input == 0 && c.cfg.Price.Output == 0 {
		c.priceOnce.Do(func() {
			c.warn(fmt.Sprintf("no price for model %s: cost counted as 0 (set model.price_per_mtok)", c.cfg.Name))
		})
	} else {
		u.Cost = (float64(u.PromptTokens)*c.cfg.Price.Input + float64(u.CompletionTokens)*c.cfg.Price.Output) / 1e6
	}
	content := choice.Message.Content
	if content == "" && choice.Message.Refusal != "" {
		// A structured-output refusal: show it to the parser (and so to the
		// model) rather than an unexplained empty reply.
		content = choice.Message.Refusal
	}
	return Reply{
		Content:      content,
		FinishReason: string(choice.FinishReason),
		Usage:        u,
		Raw:          c.rawJSON(ex.body),
	}, nil
}

// classify turns a failed attempt into a final *APIError, a transientError,
// or the caller's own cancellation.
func (c *openAIClient) classify(ctx, actx context.Context, err error, ex *exchange) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	status, msg := 0, ""
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr) && apiErr.HTTPStatusCode > 0:
		status, msg = apiErr.HTTPStatusCode, apiErr.Message
	case errors.As(err, &reqErr) && reqErr.HTTPStatusCode > 0:
		status, msg = reqErr.HTTPStatusCode, c.snippet(reqErr.Body)
	}
	if status != 0 {
		e := &APIError{Status: status, Message: c.scrub(strings.TrimSpace(msg))}
		if retryableStatus(status) {
			return &transientError{err: e, retryAfter: retryAfter(ex.header, time.Now())}
		}
		return e
	}
	if actx.Err() != nil {
		return &transientError{err: fmt.Errorf("no answer within %gs (model.timeout_seconds)", c.cfg.TimeoutSeconds)}
	}
	if ex.status >= 200 && ex.status < 300 {
		return &transientError{err: fmt.Errorf("endpoint sent a body that is not a chat completion (%v): %s", err, c.snippet(ex.body))}
	}
	if !c.reached.Load() && unreachable(err) {
		return fmt.Errorf("model: cannot reach %s: %w (is the server running? check --base-url or model.base_url)", c.cfg.BaseURL, err)
	}
	if isNetworkError(err) {
		return &transientError{err: fmt.Errorf("connection failed: %w", err)}
	}
	return fmt.Errorf("model: %w", err)
}

func retryableStatus(status int) bool {
	switch status {
	case http.StatusRequestTimeout, http.StatusTooEarly, http.StatusTooManyRequests:
		return true
	}
	return status >= 500
}

// unreachable is an endpoint that is not there: nothing listens on the port,
// or its host name does not resolve.
func unreachable(err error) bool {
	var dnsErr *net.DNSError
	return errors.Is(err, syscall.ECONNREFUSED) || errors.As(err, &dnsErr) && dnsErr.IsNotFound
}

func isNetworkError(err error) bool {
	var urlErr *url.Error
	var netErr net.Error
	var readErr *bodyReadError
	return errors.As(err, &urlErr) || errors.As(err, &netErr) || errors.As(err, &readErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE)
}

// retryAfter reads Retry-After (seconds or an HTTP date) and OpenAI's
// retry-after-ms; zero when absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 || s > 1e9 {
			return 0
		}
		return seconds(s)
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

// scrub removes the API key from text that leaves the client.
func (c *openAIClient) scrub(s string) string {
	if c.key == "" {
		return s
	}
	return strings.ReplaceAll(s, c.key, "[redacted]")
}

// snippet is a short, printable, key-free excerpt of a response body.
func (c *openAIClient) snippet(body []byte) string {
	s := strings.TrimSpace(string(body))
	if s == "" {
		return "(empty body)"
	}
	const limit = 500
	if len(s) > limit {
		s = s[:limit] + "..."
	}
	return c.scrub(strings.ToValidUTF8(s, "?"))
}

// rawJSON is the response body on one line, for raw_responses.jsonl.
func (c *openAIClient) rawJSON(body []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, body); err != nil {
		b, _ := json.Marshal(string(body))
		return []byte(c.scrub(string(b)))
	}
	if c.key != "" {
		return bytes.ReplaceAll(buf.Bytes(), []byte(c.key), []byte("[redacted]"))
	}
	return buf.Bytes()
}

// scrubbedError hides the key in the text of an error while keeping its
// chain for errors.As.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

// buildRequest turns the history into a chat request. Exit messages are the
// loop's own and never sent; images become data URLs here, so only the
// request (never the history) holds their bytes.
func (c *openAIClient) buildRequest(messages []Message) (openai.ChatCompletionRequest, bodyPatch, error) {
	req := c.baseRequest()
	var emptyAt []int
	for i, m := range messages {
		switch m.Role {
		case RoleExit:
			continue
		case RoleSystem, RoleUser, RoleAssistant:
		default:
			return req, nil, fmt.Errorf("model: message %d has role %q: only system, user and assistant can be sent", i, m.Role)
		}
		msg := openai.ChatCompletionMessage{Role: m.Role}
		if len(m.Images) == 0 {
			msg.Content = m.Content
			if m.Content == "" {
				emptyAt = append(emptyAt, len(req.Messages))
			}
		} else {
			if m.Content != "" {
				msg.MultiContent = append(msg.MultiContent, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: m.Content})
			}
			for _, path := range m.Images {
				u, err := dataURL(path)
				if err != nil {
					return req, nil, fmt.Errorf("model: message %d: %w", i, err)
				}
				msg.MultiContent = append(msg.MultiContent, openai.ChatMessagePart{
					Type:     openai.ChatMessagePartTypeImageURL,
					ImageURL: &openai.ChatMessageImageURL{URL: u},
				})
			}
		}
		req.Messages = append(req.Messages, msg)
	}
	if len(req.Messages) == 0 {
		return req, nil, fmt.Errorf("model: nothing to send: the conversation has no system, user or assistant message")
	}
	var patch bodyPatch
	if len(c.bodyFields) > 0 || len(emptyAt) > 0 {
		patch = func(body []byte) ([]byte, error) { return patchBody(body, c.bodyFields, emptyAt) }
	}
	return req, patch, nil
}

// dataURL reads an image file and encodes it as a data URL, its type taken
// from its content rather than its name.
func dataURL(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read image: %w", err)
	}
	mime := http.DetectContentType(data)
	switch mime {
	case "image/png", "image/jpeg", "image/webp", "image/gif":
	default:
		return "", fmt.Errorf("image %s is %s, not PNG or JPEG", path, mime)
	}
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data), nil
}

// bodyPatch rewrites a request body before it is sent.
type bodyPatch func([]byte) ([]byte, error)

// patchBody merges fields into the request object and gives every message at
// emptyAt an explicit "content": "" (go-openai omits empty content, and
// several servers reject a message without one).
func patchBody(body []byte, fields map[string]any, emptyAt []int) ([]byte, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, fmt.Errorf("patch request body: %w", err)
	}
	for k, v := range fields {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("patch request body: %w", err)
		}
		obj[k] = b
	}
	if len(emptyAt) > 0 {
		var msgs []map[string]json.RawMessage
		if err := json.Unmarshal(obj["messages"], &msgs); err != nil {
			return nil, fmt.Errorf("patch request body: %w", err)
		}
		for _, i := range emptyAt {
			if i < len(msgs) {
				if _, ok := msgs[i]["content"]; !ok {
					msgs[i]["content"] = json.RawMessage(`""`)
				}
			}
		}
		b, err := json.Marshal(msgs)
		if err != nil {
			return nil, fmt.Errorf("patch request body: %w", err)
		}
		obj["messages"] = b
	}
	return json.Marshal(obj)
}

// exchange is one attempt's HTTP traffic, seen by capturingDoer: go-openai
// returns only decoded structs, and we need the raw body and the headers
// (Retry-After).
type exchange struct {
	patch  bodyPatch
	status int
	header http.Header
	body   []byte
}

type exchangeKey struct{}

// bodyReadError is a connection that failed while the body was arriving.
type bodyReadError struct{ err error }

func (e *bodyReadError) Error() string { return "read response body: " + e.err.Error() }
func (e *bodyReadError) Unwrap() error { return e.err }

// capturingDoer is the http client go-openai uses: it adds the configured
// headers, applies the attempt's body patch, and records the response.
type capturingDoer struct {
	client *openAIClient
}

func (d *capturingDoer) Do(req *http.Request) (*http.Response, error) {
	for k, v := range d.client.cfg.Headers {
		req.Header.Set(k, v)
	}
	ex, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if ex != nil && ex.patch != nil && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read request body: %w", err)
		}
		if body, err = ex.patch(body); err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req.ContentLength = int64(len(body))
	}
	resp, err := d.client.http.Do(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, &bodyReadError{err: err}
	}
	if ex != nil {
		ex.status, ex.header, ex.body = resp.StatusCode, resp.Header, body
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}
