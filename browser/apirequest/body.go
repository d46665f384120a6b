package apirequest

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
)

// readBody reads a response body, decoding the Content-Encoding the
// request asked for, and refuses one over max bytes once decoded: a small
// compressed body can unpack to gigabytes, and the cap is on what lands in
// memory.
func readBody(resp *http.Response, max int64) ([]byte, error) {
	r, err := decoder(resp)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, networkErr(err)
	}
	if int64(len(body)) > max {
		return nil, fmt.Errorf("the response body is over the limit of %d MB", max>>20)
	}
	return body, nil
}

func decoder(resp *http.Response) (io.Reader, error) {
	if resp.Request != nil && resp.Request.Method == http.MethodHead {
		return strings.NewReader(""), nil
	}
	switch strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))) {
	case "gzip", "x-gzip":
		z, err := gzip.NewReader(resp.Body)
		if err == io.EOF {
			return strings.NewReader(""), nil
		}
		if err != nil {
			return nil, fmt.Errorf("decode the gzip body: %w", err)
		}
		return z, nil
	case "deflate":
		return inflate(resp.Body)
	case "br":
		return brotli.NewReader(resp.Body), nil
	}
	return resp.Body, nil
}

// inflate reads "deflate", which servers send both as zlib (what the RFC
// says) and as raw deflate.
func inflate(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	head, err := br.Peek(2)
	if err == io.EOF || len(head) == 0 {
		return strings.NewReader(""), nil
	}
	if len(head) == 2 && head[0]&0x0f == 8 && (uint16(head[0])<<8|uint16(head[1]))%31 == 0 {
		z, err := zlib.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("decode the deflate body: %w", err)
		}
		return z, nil
	}
	return flate.NewReader(br), nil
}

// Timing is Playwright's ResourceTiming: startTime in Unix milliseconds,
// the rest in milliseconds after it, -1 for a phase that did not happen.
type Timing struct {
	StartTime             float64 `json:"startTime"`
	DomainLookupStart     float64 `json:"domainLookupStart"`
	DomainLookupEnd       float64 `json:"domainLookupEnd"`
	ConnectStart          float64 `json:"connectStart"`
	SecureConnectionStart float64 `json:"secureConnectionStart"`
	ConnectEnd            float64 `json:"connectEnd"`
	RequestStart          float64 `json:"requestStart"`
	ResponseStart         float64 `json:"responseStart"`
	ResponseEnd           float64 `json:"responseEnd"`
}

// timer records one hop's phases through httptrace.
type timer struct {
	start                                          time.Time
	dnsStart, dnsEnd, connStart, tlsStart, connEnd time.Time
	firstByte, end                                 time.Time
}

func newTimer() *timer { return &timer{start: time.Now()} }

func (t *timer) trace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		DNSStart:             func(httptrace.DNSStartInfo) { t.dnsStart = time.Now() },
		DNSDone:              func(httptrace.DNSDoneInfo) { t.dnsEnd = time.Now() },
		ConnectStart:         func(string, string) { t.connStart = time.Now() },
		TLSHandshakeStart:    func() { t.tlsStart = time.Now() },
		GotConn:              func(httptrace.GotConnInfo) { t.connEnd = time.Now() },
		GotFirstResponseByte: func() { t.firstByte = time.Now() },
	})
}

func (t *timer) done() { t.end = time.Now() }

func (t *timer) since(at time.Time) float64 {
	if at.IsZero() {
		return -1
	}
	return float64(at.Sub(t.start).Microseconds()) / 1000
}

// timing reports the phases in Playwright's shape: a phase that did not
// happen takes the end of the one before it, except the TLS one (-1).
func (t *timer) timing() Timing {
	out := Timing{StartTime: float64(t.start.UnixMicro()) / 1000, DomainLookupStart: 0, SecureConnectionStart: -1}
	out.DomainLookupEnd = max(t.since(t.dnsEnd), 0)
	out.ConnectStart = out.DomainLookupEnd
	out.ConnectEnd = max(t.since(t.connEnd), out.ConnectStart)
	if !t.tlsStart.IsZero() {
		out.SecureConnectionStart = t.since(t.tlsStart)
	}
	out.RequestStart = out.ConnectEnd
	out.ResponseStart = max(t.since(t.firstByte), out.RequestStart)
	out.ResponseEnd = max(t.since(t.end), out.ResponseStart)
	return out
}
