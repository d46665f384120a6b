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

	"wright/internal/pause"
)

// transport is what every HTTP client of this package shares: the config,
// the key (kept only to scrub it), the HTTP client, the retry loop with its
// backoff, the one-off warnings, and the capture of raw bodies and headers
// that the SDKs hide behind decoded structs.
type transport struct {
	cfg  Config
	key  string
	http *http.Client
	warn func(string)
	// sleep waits between attempts; tests replace it to observe the waits.
	sleep func(ctx context.Context, d time.Duration) error

	priceOnce sync.Once
	usageOnce sync.Once
	// warned holds the one-off warnings already given (a refused
	// parameter is said once per client, not once per call).
	warned sync.Map
	// reached is set once the endpoint has answered at all: from then on a
	// refused connection is a server restarting, worth the retries; before,
	// it is an address where nothing listens, and waiting out every retry
	// (about 11 s with the defaults) only hides that.
	reached atomic.Bool
}

func newTransport(cfg Config, key string, warn func(string)) *transport {
	t := &transport{cfg: cfg, key: key, warn: warn, sleep: retryWait, http: cfg.HTTPClient}
	if t.http == nil {
		t.http = &http.Client{}
	}
	return t
}

// dropped reports whether a parameter was refused by the endpoint and is
// left out from now on.
func (c *transport) dropped(param string) bool {
	_, ok := c.warned.Load("drop:" + param)
	return ok
}

// refuses handles a refused parameter that wright can simply leave out:
// when e names setting and the parameter was not dropped yet, it is
// dropped for the rest of the client's life, said once, and the caller
// repeats the call.
func (c *transport) refuses(e *APIError, setting, param string) bool {
	return c.refusesThen(e, setting, param, fmt.Sprintf("sent without it from now on; remove %s from the config", setting))
}

// refusesThen is refuses with what happens instead said in the warning.
func (c *transport) refusesThen(e *APIError, setting, param, instead string) bool {
	if e.Setting != setting || c.dropped(param) {
		return false
	}
	c.warnOnce("drop:"+param, fmt.Sprintf("model %s refuses %s (%s): %s", c.cfg.Name, param, e.Message, instead))
	return true
}

// warnOnce gives a warning the first time its key comes up.
func (c *transport) warnOnce(key, msg string) {
	if _, seen := c.warned.LoadOrStore(key, true); !seen {
		c.warn(msg)
	}
}

// retry runs attempt until it succeeds, fails for good, or the attempts
// run out; transient failures wait with capped exponential backoff and
// jitter (or the endpoint's Retry-After). adapt, when set, is asked about a
// final error first: it returns true when it changed the request (a
// parameter the endpoint refuses is left out from now on), and the call is
// repeated at once without counting as an attempt.
func (c *transport) retry(ctx context.Context, attempt func(context.Context) (Reply, error), adapt func(*APIError) bool) (Reply, error) {
	adaptations := 0
	for n := 1; ; n++ {
		reply, err := attempt(ctx)
		if err == nil {
			return reply, nil
		}
		if ctx.Err() != nil {
			return Reply{}, fmt.Errorf("model: request abandoned: %w", context.Cause(ctx))
		}
		var t *transientError
		if !errors.As(err, &t) {
			var apiErr *APIError
			// A bounded number of changes: each one removes a parameter,
			// and there are only so many.
			if adapt != nil && adaptations < 4 && errors.As(err, &apiErr) && adapt(apiErr) {
				adaptations++
				n--
				continue
			}
			return Reply{}, err
		}
		if n >= c.cfg.Retry.Attempts {
			return Reply{}, &RetryError{Attempts: n, Err: t.err}
		}
		if err := c.sleep(ctx, c.backoff(n, t.retryAfter)); err != nil {
			return Reply{}, fmt.Errorf("model: request abandoned while waiting to retry (%v): %w", t.err, err)
		}
	}
}

// account completes a reply's usage: the total when the endpoint gave none,
// the cost from model.price_per_mtok, and the one-off warnings for a missing
// usage or price.
func (c *transport) account(u *Usage) {
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
		return
	}
	u.Cost = c.cfg.Price.Cost(*u)
}

// classifyHTTP turns a failed SDK call into a final *APIError, a
// transientError, or the caller's own cancellation, from what the
// capturing doer saw on the wire (status, headers, body), so that both
// SDKs are judged by one rule.
func (c *transport) classifyHTTP(ctx, actx context.Context, err error, ex *exchange) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if ex.status >= 300 {
		e := &APIError{Status: ex.status, Message: c.scrub(errorMessage(ex.body))}
		e.Setting = refusedSetting(e.Status, e.Message)
		if retryableStatus(ex.status) {
			return &transientError{err: e, retryAfter: retryAfter(ex.header, time.Now())}
		}
		return e
	}
	if actx.Err() != nil {
		return &transientError{err: fmt.Errorf("no answer within %gs (model.timeout_seconds)", c.cfg.TimeoutSeconds)}
	}
	if ex.status >= 200 && ex.status < 300 {
		return &transientError{err: fmt.Errorf("endpoint sent a body that is not a %s answer (%v): %s", c.cfg.API, err, c.snippet(ex.body))}
	}
	if !c.reached.Load() && unreachable(err) {
		return fmt.Errorf("model: cannot reach %s: %w (is the server running? check --base-url or model.base_url)", c.cfg.BaseURL, err)
	}
	if isNetworkError(err) {
		return &transientError{err: fmt.Errorf("connection failed: %w", err)}
	}
	return fmt.Errorf("model: %s", c.scrub(err.Error()))
}

// errorMessage is the message of an error body in either provider's shape
// ({"error": {"message": ...}} for OpenAI, {"type": "error", "error":
// {"type": ..., "message": ...}} for Anthropic), with the error's type and
// parameter when given; otherwise a short excerpt of the body.
func errorMessage(body []byte) string {
	var e struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
			Param   string `json:"param"`
			Code    any    `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		msg := e.Error.Message
		if e.Error.Type != "" {
			msg = e.Error.Type + ": " + msg
		}
		if e.Error.Param != "" {
			msg += " (param " + e.Error.Param + ")"
		}
		return strings.TrimSpace(msg)
	}
	s := strings.TrimSpace(strings.ToValidUTF8(string(body), "?"))
	if len(s) > 500 {
		s = s[:500] + "..."
	}
	return s
}

// refusedSetting names the setting to change when a 400-class answer says
// the endpoint refuses one of the parameters wright sent.
func refusedSetting(status int, msg string) string {
	if status != http.StatusBadRequest && status != http.StatusUnprocessableEntity {
		return ""
	}
	m := strings.ToLower(msg)
	for _, r := range []struct{ word, setting string }{
		{"temperature", "model.temperature"},
		{"reasoning", "model.reasoning_effort"},
		{"effort", "model.reasoning_effort"},
		{"thinking", "model.thinking"},
		{"prompt_cache_key", "model.api"},
		{"output_config", "model.response_format"},
		{"response_format", "model.response_format"},
		{"text.format", "model.response_format"},
		{"json_schema", "model.response_format"},
		{"structured output", "model.response_format"},
		{"max_output_tokens", "model.max_tokens"},
		{"max_tokens", "model.max_tokens"},
		{"max_completion_tokens", "model.max_tokens"},
		{"image", "model.attach_observation_screenshot"},
	} {
		if strings.Contains(m, r.word) {
			return r.setting
		}
	}
	return ""
}

// backoff is the wait before attempt n+1: exponential from the initial delay,
// with jitter in [d/2, d], or the endpoint's Retry-After when it gave one;
// both capped by the maximum delay.
func (c *transport) backoff(attempt int, retryAfter time.Duration) time.Duration {
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
func (c *transport) scrub(s string) string {
	if c.key == "" {
		return s
	}
	return strings.ReplaceAll(s, c.key, "[redacted]")
}

// snippet is a short, printable, key-free excerpt of a response body.
func (c *transport) snippet(body []byte) string {
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
func (c *transport) rawJSON(body []byte) []byte {
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
	t *transport
}

func (d *capturingDoer) Do(req *http.Request) (*http.Response, error) {
	for k, v := range d.t.cfg.Headers {
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
	resp, err := d.t.http.Do(req)
	if err != nil {
		return nil, err
	}
	d.t.reached.Store(true)
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
