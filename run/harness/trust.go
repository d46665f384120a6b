package harness

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"sync"

	"wright/browser"
	"wright/env/live"
	"wright/trust/netpolicy"

	"wright/internal/scratch"
	"wright/model"
	"wright/run/config"
	"wright/run/judge/keyproxy"
	"wright/run/output"
	"wright/run/rundir"
	"wright/run/verdict"
	"wright/trust/secrets"
)

// judgeMeter sums what the judge spends inside a run (the harness's own
// judge calls and those the model's shell makes through the key proxy), so
// that it counts toward agent.cost_limit.
type judgeMeter struct {
	mu    sync.Mutex
	u     model.Usage
	price model.Price
}

func (m *judgeMeter) add(u model.Usage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.u = m.u.Add(u)
}

// addProxied prices an answer that came through the key proxy.
func (m *judgeMeter) addProxied(p keyproxy.Usage) {
	u := model.Usage{PromptTokens: p.Prompt, CompletionTokens: p.Completion, TotalTokens: p.Prompt + p.Completion,
		CachedTokens: p.Cached, CacheWriteTokens: p.CacheWrite}
	u.Cost = m.price.Cost(u)
	m.add(u)
}

func (m *judgeMeter) total() model.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.u
}

// meteredClient counts every answer of a judge client on the meter.
type meteredClient struct {
	model.Client
	meter *judgeMeter
}

func (c meteredClient) Complete(ctx context.Context, msgs []model.Message) (model.Reply, error) {
	r, err := c.Client.Complete(ctx, msgs)
	c.meter.add(r.Usage)
	return r, err
}

// meteredJudge is the run's judge client, metered.
func meteredJudge(cfg *config.Config, meter *judgeMeter) (model.Client, model.Config, error) {
	jm, err := cfg.JudgeModel()
	if err != nil {
		return nil, jm, err
	}
	c, err := judgeClient(cfg)
	if err != nil {
		return nil, jm, err
	}
	return meteredClient{c, meter}, jm, nil
}

// harnessJudge serves the run's judge on a Unix socket that `wright
// reflect` inside the run finds in verdict.SocketEnv, and returns the
// check the file gate applies to every verdict: only one this harness
// sealed, for exactly the files now in its run folder, counts.
func harnessJudge(ctx context.Context, cfg *config.Config, run *rundir.Run, meter *judgeMeter, schema *output.Schema) (map[string]string, func([]byte, string) error, func(), error) {
	client, jm, err := meteredJudge(cfg, meter)
	if err != nil {
		return nil, nil, nil, err
	}
	sealer, err := verdict.NewSealer()
	if err != nil {
		return nil, nil, nil, err
	}
	dir, err := scratch.MkdirTemp("", "harness-")
	if err != nil {
		return nil, nil, nil, err
	}
	judge := &verdict.Judge{Workspace: run.Workspace, Client: client, Model: jm.Name, Endpoint: endpoint(jm), Sealer: sealer, Schema: schema}
	srv, err := verdict.Serve(ctx, filepath.Join(dir, "harness.sock"), judge)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, nil, err
	}
	verify := func(data []byte, runPath string) error { return sealer.Verify(data, run.Workspace, runPath) }
	vars := map[string]string{verdict.SocketEnv: filepath.Join(dir, "harness.sock")}
	return vars, verify, func() { srv.Close(); os.RemoveAll(dir) }, nil
}

// privateRanges parses browser.allowed_private.
func privateRanges(cfg *config.Config) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range cfg.Browser.AllowedPrivate {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("browser.allowed_private: %q is not a CIDR range (e.g. 10.0.0.0/8)", s)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// workspaceProxy starts the run's policy proxy for workspace mode and
// returns the variables that send the shell's tools through it: curl,
// Python's urllib and the browsers scripts launch (browser.ProxyEnv).
// Without the sandbox a script can unset them: the proxy is a net, not a
// wall.
//
// With a socket path the proxy serves there too, and the variables name
// the sandbox's listener instead (the sandbox has no other way out).
func workspaceProxy(cfg *config.Config, socket string) (map[string]string, string, func(), error) {
	pol, err := live.NewPolicy(cfg.Browser.AllowedDomains, cfg.Browser.BlockedDomains)
	if err != nil {
		return nil, "", nil, err
	}
	private, err := privateRanges(cfg)
	if err != nil {
		return nil, "", nil, err
	}
	p, err := netpolicy.Start(netpolicy.Options{CheckURL: pol.Check, AllowPrivate: private})
	if err != nil {
		return nil, "", nil, err
	}
	if socket != "" {
		if err := p.ServeUnix(socket); err != nil {
			p.Close()
			return nil, "", nil, err
		}
		return sandboxProxyVars(), p.URL(), p.Close, nil
	}
	u := p.URL()
	vars := map[string]string{browser.ProxyEnv: u, "HTTP_PROXY": u, "HTTPS_PROXY": u, "http_proxy": u, "https_proxy": u,
		"ALL_PROXY": u, "all_proxy": u, "NO_PROXY": "", "no_proxy": ""}
	return vars, u, p.Close, nil
}

// promptSecrets are the secret names the system prompt offers: live
// browser mode types them, and a sandboxed workspace run whose scripts get
// their browsers from wright (spawned); otherwise the driver runs in the
// model's own process tree, where a value would not stay secret.
func promptSecrets(cfg *config.Config, set *secrets.Set, spawned bool) []string {
	if cfg.Agent.Mode != "browser" && !spawned {
		return nil
	}
	return set.Names()
}
