package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"wright/model"
)

// APISampling is the model.api value that sends a run's model calls (the
// agent's and, unless gate.model names another API, the judge's) to the MCP
// client that started the run, as sampling/createMessage requests: a user
// with no key of wright's own makes and verifies scripts with the client's
// model. It works for runs started over MCP (script_make, script_heal) and
// for the judge of reruns; anywhere else there is no client to ask.
const APISampling = "sampling"

// samplingHost is the base URL's host: a loopback name, so that no key is
// asked for; no request is ever sent to it. The path names the call's
// sampler.
const samplingHost = "http://127.0.0.1/mcp-sampling/"

var registerOnce sync.Once

// RegisterSampling adds APISampling to the model's provider table. Only
// `wright mcp` calls it: elsewhere there is no client to ask, and the API
// stays unknown (a config naming it is refused with the APIs there are).
func RegisterSampling() {
	registerOnce.Do(registerSampling)
}

func registerSampling() {
	model.Register(model.Provider{
		Name:       APISampling,
		New:        newSamplingClient,
		KeyEnv:     "WRIGHT_SAMPLING_KEY",
		BaseURL:    samplingHost,
		AuthHeader: "Authorization",
		AuthPrefix: "Bearer ",
		Path:       "/sampling",
		ParseUsage: func([]byte) model.Usage { return model.Usage{} },
		TraceName:  "mcp.sampling",
	})
}

// samplers are the MCP sessions runs may ask, by the id in their base URL,
// for as long as the tool call that started the run lasts.
var samplers sync.Map // id -> *mcp.ServerSession

// lendSampler makes ss askable by the runs of one tool call; the returned
// function takes it back.
func lendSampler(ss *mcp.ServerSession) (baseURL string, done func(), err error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", nil, err
	}
	id := hex.EncodeToString(b)
	samplers.Store(id, ss)
	return samplingHost + id, func() { samplers.Delete(id) }, nil
}

// samplingClient asks the MCP client's model.
type samplingClient struct {
	id        string
	name      string
	maxTokens int64
	temp      *float64
}

func newSamplingClient(cfg model.Config, _ string, _ func(string)) (model.Client, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("model.api sampling: base_url %q: %w", cfg.BaseURL, err)
	}
	id := strings.TrimSuffix(strings.TrimPrefix(u.Path, "/mcp-sampling/"), "/")
	if _, ok := samplers.Load(id); !ok {
		return nil, errors.New("model.api sampling: no MCP client to ask: sampling works for runs started over wright mcp (script_make, script_heal, script_rerun's judge) by a client that offers it")
	}
	c := &samplingClient{id: id, name: cfg.Name, maxTokens: int64(cfg.MaxTokens), temp: cfg.Temperature}
	if c.maxTokens <= 0 {
		c.maxTokens = 8192
	}
	return c, nil
}

// Complete sends the history as one sampling request: the system prompt
// apart, each message's text and then its images as messages of its role.
func (c *samplingClient) Complete(ctx context.Context, msgs []model.Message) (model.Reply, error) {
	v, ok := samplers.Load(c.id)
	if !ok {
		return model.Reply{}, errors.New("model.api sampling: the MCP call that lent its client has ended")
	}
	ss := v.(*mcp.ServerSession)
	p := &mcp.CreateMessageParams{MaxTokens: c.maxTokens, Messages: []*mcp.SamplingMessage{}}
	if c.name != "" && c.name != APISampling {
		p.ModelPreferences = &mcp.ModelPreferences{Hints: []*mcp.ModelHint{{Name: c.name}}}
	}
	if c.temp != nil {
		p.Temperature = *c.temp
	}
	var system []string
	for _, m := range msgs {
		role := mcp.Role("user")
		switch m.Role {
		case "system":
			system = append(system, m.Content)
			continue
		case "assistant":
			role = "assistant"
		}
		if m.Content != "" || len(m.Images) == 0 {
			p.Messages = append(p.Messages, &mcp.SamplingMessage{Role: role, Content: &mcp.TextContent{Text: m.Content}})
		}
		for _, img := range m.Images {
			b, err := os.ReadFile(img)
			if err != nil {
				return model.Reply{}, fmt.Errorf("model.api sampling: read image: %w", err)
			}
			mime := "image/png"
			if ext := strings.ToLower(filepath.Ext(img)); ext == ".jpg" || ext == ".jpeg" {
				mime = "image/jpeg"
			}
			p.Messages = append(p.Messages, &mcp.SamplingMessage{Role: role, Content: &mcp.ImageContent{Data: b, MIMEType: mime}})
		}
	}
	p.SystemPrompt = strings.Join(system, "\n\n")
	res, err := ss.CreateMessage(ctx, p)
	if err != nil {
		return model.Reply{}, fmt.Errorf("model.api sampling: the client's answer: %w", err)
	}
	text, ok := res.Content.(*mcp.TextContent)
	if !ok {
		return model.Reply{}, fmt.Errorf("model.api sampling: the client answered %T, not text", res.Content)
	}
	reason := res.StopReason
	switch reason {
	case "endTurn", "":
		reason = "stop"
	case "maxTokens":
		reason = "length"
	}
	return model.Reply{Content: text.Text, FinishReason: reason}, nil
}
