package driver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"wright/browser/apirequest"
	"wright/browser/har"
)

// An API request context of its own (playwright.request.new_context())
// records its exchanges into a HAR between apirequest.har_start and
// apirequest.har_export (Playwright's request.tracing.start_har and
// stop_har). No browser sees these requests, so the recorder is fed here,
// one entry per call: the request as sent and the last hop's response.

type apiHAR struct {
	rec  *har.Recorder
	path string
	seq  atomic.Int64 // tells the calls apart in the recorder
}

func (a *apiContexts) har(id string) *apiHAR {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hars[id]
}

// record makes the request, recording it and its answer (or its failure).
func (h *apiHAR) record(ctx context.Context, c *apirequest.Client, ap apiRequestParams) (any, error) {
	key := "api:" + strconv.FormatInt(h.seq.Add(1), 10)
	q := har.RequestStart{Key: key, URL: ap.URL, Method: strings.ToUpper(ap.Method), Headers: pairMap(ap.Headers),
		ResourceType: "fetch", Time: time.Now()}
	if q.Method == "" {
		q.Method = "GET"
	}
	if ap.PostData != "" {
		if b, err := base64.StdEncoding.DecodeString(ap.PostData); err == nil {
			s := string(b)
			q.PostData = &s
		}
	}
	h.rec.Request(q)
	res, err := doAPIRequest(ctx, c, ap)
	now := time.Now()
	r, ok := res.(*apirequest.Response)
	if err != nil || !ok {
		msg := "the request failed"
		if err != nil {
			msg = err.Error()
		}
		h.rec.Failed(key, msg, now)
		return res, err
	}
	h.rec.Response(har.ResponseStart{Key: key, Status: r.Status, StatusText: r.StatusText,
		Headers: pairMap(r.Headers), Protocol: "http/1.1", Time: now})
	body, _ := base64.StdEncoding.DecodeString(r.Body)
	h.rec.Finished(key, body, now)
	return res, nil
}

// pairMap joins a header list the way the recorder takes it: one value a
// name, several joined by newlines.
func pairMap(pairs [][2]string) map[string]string {
	out := make(map[string]string, len(pairs))
	for _, kv := range pairs {
		if v, ok := out[kv[0]]; ok {
			out[kv[0]] = v + "\n" + kv[1]
			continue
		}
		out[kv[0]] = kv[1]
	}
	return out
}

// apiRequestHARStart answers apirequest.har_start.
func apiRequestHARStart(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		apiIDParams
		harRecordParams
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if _, _, err := c.api.get(p.Request); err != nil {
		return nil, err
	}
	opts, err := p.options(nil)
	if err != nil {
		return nil, err
	}
	a := &c.api
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.hars[p.Request] != nil {
		return nil, invalid("the API request context %q records a HAR already: stop_har() it first", p.Request)
	}
	if a.hars == nil {
		a.hars = map[string]*apiHAR{}
	}
	if _, err := c.s.files().check("record the HAR", p.Path); err != nil {
		return nil, err
	}
	a.hars[p.Request] = &apiHAR{rec: har.NewRecorder(opts), path: p.Path}
	return nil, nil
}

// apiRequestHARExport answers apirequest.har_export: the recording ends
// and its file is written.
func apiRequestHARExport(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p apiIDParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	a := &c.api
	a.mu.Lock()
	h := a.hars[p.Request]
	delete(a.hars, p.Request)
	a.mu.Unlock()
	if h == nil {
		return nil, invalid("the API request context %q records no HAR", p.Request)
	}
	return c.s.writeHAR(h.rec, h.path)
}
