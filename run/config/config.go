// Package config merges wright's layered configuration: the built-in
// base.yaml, then each -c layer in order (a built-in name, a YAML file, or an
// inline key.path=value), then WRIGHT_* environment variables, then flags.
package config

import (
	"bytes"
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"wright/model"
	"wright/run/agent"
	"wright/trust/secrets"
)

//go:embed builtin/*.yaml
var builtins embed.FS

// Config is the whole merged configuration.
type Config struct {
	Agent   agent.Config `mapstructure:"agent"`
	Model   model.Config `mapstructure:"model"`
	Env     Env          `mapstructure:"env"`
	Browser Browser      `mapstructure:"browser"`
	Gate    Gate         `mapstructure:"gate"`
	// Secrets are values the model may use only as <secret>name</secret>
	// (package secrets). Names are lowercase (the config layers lowercase
	// keys).
	Secrets map[string]secrets.Spec `mapstructure:"secrets"`

	// settings is the merged tree, kept to write config.yaml.
	settings map[string]any
}

// Env configures the environment the actions run in.
type Env struct {
	CommandTimeoutSeconds float64 `mapstructure:"command_timeout_seconds"`
	StepTimeoutSeconds    float64 `mapstructure:"step_timeout_seconds"`
	OutputTruncationChars int     `mapstructure:"output_truncation_chars"`
	AriaSnapshotChars     int     `mapstructure:"aria_snapshot_chars"`
	// AriaSnapshot is what a live observation shows of the snapshot: full
	// (all of it every step) or changes (all of it after a navigation,
	// else what changed since the model's last one).
	AriaSnapshot string `mapstructure:"aria_snapshot"`
	// Vars (env.env in the YAML) are the variables the model's code gets.
	// They are read from the layers directly: viper lowercases map keys,
	// and variable names are case-sensitive.
	Vars    map[string]string `mapstructure:"-"`
	HideEnv []string          `mapstructure:"hide_env"`
	// Sandbox is how the model's processes are confined: auto (bubblewrap
	// where it works), bwrap (or an error), none (package sandbox).
	Sandbox string `mapstructure:"sandbox"`
	// SandboxReadOnly are more paths the sandbox shows, read-only (a
	// virtualenv, tools installed outside /usr and /opt).
	SandboxReadOnly []string `mapstructure:"sandbox_read_only"`
}

// Browser configures Chromium.
type Browser struct {
	Executable string `mapstructure:"executable"`
	CDPURL     string `mapstructure:"cdp_url"`
	// CDPURLs are remote browsers (a grid) that `wright bench` hands out
	// by worker (worker i takes the i-th); cdp_url, when set, wins.
	CDPURLs []string `mapstructure:"cdp_urls"`
	// CDPURLsFile is a file of more such endpoints, one a line, # comments.
	CDPURLsFile    string   `mapstructure:"cdp_urls_file"`
	Headless       bool     `mapstructure:"headless"`
	Viewport       Viewport `mapstructure:"viewport"`
	TimeoutMS      int      `mapstructure:"timeout_ms"`
	AllowedDomains []string `mapstructure:"allowed_domains"`
	BlockedDomains []string `mapstructure:"blocked_domains"`
	// AllowedPrivate are private address ranges (CIDR) the network policy
	// lets through, for self-hosted sites; others are refused.
	AllowedPrivate []string `mapstructure:"allowed_private"`
	// RecordHAR writes each browser's traffic as a HAR into the run's har/.
	RecordHAR bool `mapstructure:"record_har"`
	// ReplayHAR is a HAR file or folder answering every request in the
	// network's place (docs/har.md).
	ReplayHAR string `mapstructure:"replay_har"`
}

// Viewport is a browser window size in CSS pixels.
type Viewport struct {
	Width  int `mapstructure:"width"`
	Height int `mapstructure:"height"`
}

// Gate configures the completion gate and its judge.
type Gate struct {
	Mode                string         `mapstructure:"mode"`
	Model               map[string]any `mapstructure:"model"`
	RerunTimeoutSeconds float64        `mapstructure:"rerun_timeout_seconds"`
	// Crafted makes final_script.py a parameterised command-line tool: the
	// rerun gate also runs it with --help (crafted_cli.yaml).
	Crafted bool `mapstructure:"crafted"`
	// Trace has the rerun gate's run of final_script.py record a Playwright
	// trace, final_runs/run_<N>/trace.zip (docs/playwright-traces.md).
	Trace bool `mapstructure:"trace"`
	// Video films each of the rerun gate's final runs (final_runs/run_<N>/
	// video/, needs ffmpeg); wright review shows the videos.
	Video bool `mapstructure:"video"`
}

// Builtins lists the names of the built-in config files.
func Builtins() []string {
	entries, _ := builtins.ReadDir("builtin")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	return names
}

// Load merges base.yaml, the layers and the environment, then applies
// overrides (from flags: only the ones the user set) on top.
func Load(layers []string, overrides map[string]any) (*Config, error) {
	v := viper.New()
	v.SetConfigType("yaml")
	envVars := map[string]string{}
	var rawSchema any
	for _, layer := range append([]string{"base"}, layers...) {
		tree, err := readLayer(layer)
		if err != nil {
			return nil, err
		}
		mergeEnvVars(envVars, tree)
		if agent, ok := tree["agent"].(map[string]any); ok {
			if s, ok := agent["output_schema"]; ok {
				rawSchema = deepCopy(s) // viper lowercases the tree in place
			}
		}
		if err := v.MergeConfigMap(tree); err != nil {
			return nil, fmt.Errorf("config %s: %w", layer, err)
		}
	}
	// A variable overrides a leaf key (WRIGHT_AGENT_STEP_LIMIT for
	// agent.step_limit). Only leaves are bound: viper's AutomaticEnv would
	// also let a variable named after a section shadow all of it, and
	// WRIGHT_BROWSER, which names the browser binary, would then wipe every
	// browser.* setting (headless included).
	for _, k := range v.AllKeys() {
		if err := v.BindEnv(k, envName(k)); err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
	}
	for k, val := range overrides {
		v.Set(k, val)
	}
	settings := v.AllSettings()
	if err := checkKeys(settings); err != nil {
		return nil, err
	}
	var c Config
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		Result:           &c,
		WeaklyTypedInput: true,
		ErrorUnused:      false,
		DecodeHook:       mapstructure.StringToSliceHookFunc(","),
	})
	if err != nil {
		return nil, err
	}
	if err := dec.Decode(settings); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	c.Env.Vars = envVars
	c.Agent.OutputSchema = outputSchema(v.Get("agent.output_schema"), rawSchema, settings)
	c.settings = settings
	if err := c.validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// envName is the environment variable of key: agent.step_limit is
// WRIGHT_AGENT_STEP_LIMIT.
func envName(key string) string {
	return "WRIGHT_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// readLayer turns one -c value into a config tree.
func readLayer(layer string) (map[string]any, error) {
	var data []byte
	switch {
	case isInline(layer):
		key, raw, _ := strings.Cut(layer, "=")
		var val any
		if err := yaml.Unmarshal([]byte(raw), &val); err != nil {
			return nil, fmt.Errorf("config %s: value is not YAML: %w", layer, err)
		}
		return nest(strings.TrimSpace(key), val), nil
	case !strings.ContainsAny(layer, "/\\") && !strings.HasSuffix(layer, ".yaml") && !strings.HasSuffix(layer, ".yml"):
		b, err := builtins.ReadFile("builtin/" + layer + ".yaml")
		if err != nil {
			return nil, fmt.Errorf("config %q: no such built-in config (built-ins: %s) and not a file path", layer, strings.Join(Builtins(), ", "))
		}
		data = b
	default:
		b, err := os.ReadFile(layer)
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		data = b
	}
	tree := map[string]any{}
	if err := yaml.Unmarshal(data, &tree); err != nil {
		return nil, fmt.Errorf("config %s: %w", layer, err)
	}
	return tree, nil
}

var inlineKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+=`)

// isInline reports a key.path=value layer. A dotted key is required so that
// a file path containing '=' is never mistaken for one.
func isInline(layer string) bool { return inlineKey.MatchString(layer) }

func nest(key string, val any) map[string]any {
	parts := strings.Split(key, ".")
	tree := map[string]any{parts[len(parts)-1]: val}
	for i := len(parts) - 2; i >= 0; i-- {
		tree = map[string]any{parts[i]: tree}
	}
	return tree
}

// outputSchema picks agent.output_schema: a path from wherever it was set
// last (a flag, WRIGHT_AGENT_OUTPUT_SCHEMA, a layer), or the last layer's
// mapping with its keys as written. settings gets the same value, so
// config.yaml shows the schema as it is used.
func outputSchema(merged, raw any, settings map[string]any) any {
	val := merged
	if _, isMap := merged.(map[string]any); isMap && raw != nil {
		val = raw
	}
	if agent, ok := settings["agent"].(map[string]any); ok && val != nil {
		agent["output_schema"] = val
	}
	return val
}

func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}

// mergeEnvVars applies a layer's env.env map, keeping the case of names.
// A null value removes a variable an earlier layer set.
func mergeEnvVars(dst map[string]string, tree map[string]any) {
	envSection, _ := tree["env"].(map[string]any)
	vars, ok := envSection["env"].(map[string]any)
	if !ok {
		return
	}
	for name, val := range vars {
		if val == nil {
			delete(dst, name)
			continue
		}
		dst[name] = fmt.Sprint(val)
	}
}

func (c *Config) validate() error {
	var problems []string
	// agent.mode and model.action_field are the harness's to check: the
	// environments decide which modes and action fields exist.
	if _, ok := model.LookupProvider(c.Model.API); !ok {
		problems = append(problems, fmt.Sprintf("model.api is %q: use %s", c.Model.API, model.ProviderChoices()))
	}
	switch c.Model.Thinking {
	case "", model.ThinkingOff, model.ThinkingAdaptive:
	default:
		problems = append(problems, fmt.Sprintf("model.thinking is %q: use off or adaptive", c.Model.Thinking))
	}
	switch c.Model.ResponseFormat {
	case "json_schema", "json_object", "none":
	default:
		problems = append(problems, fmt.Sprintf("model.response_format is %q: use json_schema, json_object or none", c.Model.ResponseFormat))
	}
	switch c.Gate.Mode {
	case "file", "rerun", "off":
	default:
		problems = append(problems, fmt.Sprintf("gate.mode is %q: use file, rerun or off", c.Gate.Mode))
	}
	if c.Agent.StepLimit <= 0 {
		problems = append(problems, "agent.step_limit must be at least 1")
	}
	if c.Agent.PruneBlock < 0 {
		problems = append(problems, "agent.prune_block must be 0 or more (0 and 1 prune each observation as it falls out)")
	}
	if c.Agent.MaxConsecutiveFormatErrors <= 0 {
		problems = append(problems, "agent.max_consecutive_format_errors must be at least 1")
	}
	if c.Env.CommandTimeoutSeconds <= 0 {
		problems = append(problems, "env.command_timeout_seconds must be positive")
	}
	switch c.Env.AriaSnapshot {
	case "full", "changes":
	default:
		problems = append(problems, fmt.Sprintf("env.aria_snapshot is %q: use full or changes", c.Env.AriaSnapshot))
	}
	switch c.Env.Sandbox {
	case "", "auto", "bwrap", "none":
	default:
		problems = append(problems, fmt.Sprintf("env.sandbox is %q: use auto, bwrap or none", c.Env.Sandbox))
	}
	if len(problems) > 0 {
		return fmt.Errorf("config: %s", strings.Join(problems, "; "))
	}
	return nil
}

// secretKey matches setting names whose values must never reach a file.
var secretKey = regexp.MustCompile(`(?i)(api_?key|token|secret|password|passwd|authorization|cookie)$`)

// Redacted returns the merged settings as YAML with every secret replaced,
// and any occurrence of the given secret values too.
func (c *Config) Redacted(secrets ...string) ([]byte, error) {
	clean := redact(c.settings, secrets).(map[string]any)
	envSection, _ := clean["env"].(map[string]any)
	if envSection != nil {
		vars := map[string]any{}
		for k, v := range c.Env.Vars {
			vars[k] = redactValue(k, v, secrets)
		}
		envSection["env"] = vars
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(clean); err != nil {
		return nil, fmt.Errorf("encode config: %w", err)
	}
	return buf.Bytes(), nil
}

func redact(v any, secrets []string) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			if s, ok := val.(string); ok {
				out[k] = redactValue(k, s, secrets)
				continue
			}
			out[k] = redact(val, secrets)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			out[i] = redact(val, secrets)
		}
		return out
	case string:
		return redactValue("", t, secrets)
	}
	return v
}

func redactValue(key, val string, secrets []string) string {
	if val != "" && secretKey.MatchString(key) {
		return "[redacted]"
	}
	for _, s := range secrets {
		if s != "" && strings.Contains(val, s) {
			val = strings.ReplaceAll(val, s, "[redacted]")
		}
	}
	return val
}

// KeyNames lists the environment variables that hold keys and secrets and
// must never reach the model's shell (nor stay in wright's own environment
// block).
func (c *Config) KeyNames() []string {
	names := map[string]bool{}
	for _, p := range model.Providers() {
		names[p.KeyEnv] = true
	}
	if c.Model.APIKeyEnv != "" {
		names[c.Model.APIKeyEnv] = true
	}
	if k, ok := c.Gate.Model["api_key_env"].(string); ok && k != "" {
		names[k] = true
	}
	for _, n := range c.Env.HideEnv {
		names[n] = true
	}
	for _, s := range c.Secrets {
		if s.Env != "" {
			names[s.Env] = true
		}
	}
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// JudgeModel is the judge's model config: gate.model over model.
func (c *Config) JudgeModel() (model.Config, error) {
	jm := c.Model
	if len(c.Gate.Model) == 0 {
		return jm, nil
	}
	if api, ok := c.Gate.Model["api"].(string); ok && api != c.Model.API {
		// Another API is another provider: the agent's endpoint, key
		// variable and Anthropic-only thinking do not carry over unless
		// gate.model says so itself.
		jm.BaseURL, jm.APIKeyEnv, jm.Thinking = "", "", ""
	}
	if err := mapstructure.WeakDecode(c.Gate.Model, &jm); err != nil {
		return jm, fmt.Errorf("config gate.model: %w", err)
	}
	return jm, nil
}

// Abs makes a path from the config absolute against the current directory.
func Abs(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
