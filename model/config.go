package model

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"

	"wright/trust/keyring"
)

// Action fields: the key of the JSON object that carries the code to run.
const (
	// The action fields of the two environments, for callers and tests
	// that speak of them; an environment's Kind is what decides.
	FieldBash   = "bash_command" // workspace mode: a bash command
	FieldPython = "python_code"  // live browser mode: Python for the live page
)

// Response formats a Config can ask the endpoint for.
const (
	FormatJSONSchema = "json_schema" // strict schema with the four action fields (default)
	FormatJSONObject = "json_object" // any JSON object
	FormatNone       = "none"        // no response_format at all, for endpoints without it
)

// Thinking settings for the Anthropic API (model.thinking).
const (
	ThinkingOff      = "off"      // no thinking block asked for (default)
	ThinkingAdaptive = "adaptive" // the model decides how much to think
)

// Defaults used when the config leaves a value at zero (each API's base
// URL and key variable are in its Provider entry).
const (
	// DefaultAnthropicMaxTokens: the Messages API requires max_tokens.
	DefaultAnthropicMaxTokens  = 8192
	DefaultTimeoutSeconds      = 300
	DefaultAttempts            = 5
	DefaultInitialDelaySeconds = 1
	DefaultMaxDelaySeconds     = 30
)

// ReplayPrefix in Config.Name selects the replay client: "replay:<file.jsonl>".
const ReplayPrefix = "replay:"

// Config is the `model` section of the configuration.
type Config struct {
	Name            string            `mapstructure:"name"`             // model name sent to the endpoint, or replay:<file.jsonl>
	API             string            `mapstructure:"api"`              // a Provider's name: chat (default) | responses | anthropic
	BaseURL         string            `mapstructure:"base_url"`         // with or without /v1; default: $OPENAI_BASE_URL (or $ANTHROPIC_BASE_URL), else the provider's
	APIKeyEnv       string            `mapstructure:"api_key_env"`      // variable holding the key; default ANTHROPIC_API_KEY for anthropic, else OPENAI_API_KEY
	ReasoningEffort string            `mapstructure:"reasoning_effort"` // "" (the model's default) | none | minimal | low | medium | high | xhigh | max
	Thinking        string            `mapstructure:"thinking"`         // anthropic: off (default) | adaptive
	ActionField     string            `mapstructure:"action_field"`     // bash_command | python_code
	ResponseFormat  string            `mapstructure:"response_format"`  // json_schema (default) | json_object | none
	Temperature     *float64          `mapstructure:"temperature"`      // nil: the endpoint's default
	MaxTokens       int               `mapstructure:"max_tokens"`       // 0: the endpoint's default
	TimeoutSeconds  float64           `mapstructure:"timeout_seconds"`  // per request (one attempt)
	Price           Price             `mapstructure:"price_per_mtok"`
	Retry           Retry             `mapstructure:"retry"`
	Headers         map[string]string `mapstructure:"headers"` // extra HTTP headers (OpenRouter wants some)

	// AttachObservationScreenshot is read by the agent (it decides which
	// messages carry images); it lives here because it sits in the model
	// section of the configuration.
	AttachObservationScreenshot bool `mapstructure:"attach_observation_screenshot"`
	// ObservationScreenshotFormat and ObservationScreenshotQuality are
	// how live mode captures the screenshot it attaches: png, jpeg or
	// webp, and 1-100 for the lossy two (0: Chromium's default).
	ObservationScreenshotFormat  string `mapstructure:"observation_screenshot_format"`
	ObservationScreenshotQuality int    `mapstructure:"observation_screenshot_quality"`

	// HTTPClient, when set, carries every request (the judge routes its
	// calls through a Unix-socket proxy with it). Since such a transport may
	// add credentials itself, no API key is required when it is set.
	HTTPClient *http.Client `mapstructure:"-"`
	// Schema, when set, replaces the action schema sent with
	// response_format json_schema (for callers whose replies are not
	// actions, such as the judge). It must be a JSON Schema object.
	Schema []byte `mapstructure:"-"`
}

// Price is USD per million tokens; zero means unknown and counts as 0.
type Price struct {
	Input  float64 `mapstructure:"input"`
	Output float64 `mapstructure:"output"`
	// CachedInput is the price of prompt tokens read from the provider's
	// cache; 0 prices them as Input (an upper bound, never an
	// undercount).
	CachedInput float64 `mapstructure:"cached_input"`
	// CacheWrite is the price of prompt tokens written to the cache
	// (Anthropic charges more for those); 0 prices them as Input.
	CacheWrite float64 `mapstructure:"cache_write"`
}

// Cost is what a call's usage costs at these prices, in USD: uncached
// prompt tokens at Input, cache reads at CachedInput, cache writes at
// CacheWrite, and completion tokens (reasoning included) at Output.
func (p Price) Cost(u Usage) float64 {
	cached, write := p.CachedInput, p.CacheWrite
	if cached == 0 {
		cached = p.Input
	}
	if write == 0 {
		write = p.Input
	}
	uncached := max(u.PromptTokens-u.CachedTokens-u.CacheWriteTokens, 0)
	return (float64(uncached)*p.Input + float64(u.CachedTokens)*cached +
		float64(u.CacheWriteTokens)*write + float64(u.CompletionTokens)*p.Output) / 1e6
}

// Retry bounds the retries of transient failures (429, 5xx, timeouts,
// dropped connections).
type Retry struct {
	Attempts            int     `mapstructure:"attempts"` // total attempts, first one included
	InitialDelaySeconds float64 `mapstructure:"initial_delay_seconds"`
	MaxDelaySeconds     float64 `mapstructure:"max_delay_seconds"` // caps every wait, Retry-After included
}

// New builds the client the config names: the replay client for
// "replay:<file.jsonl>", otherwise the client of model.api's Provider. warn (may be
// nil) receives one-off warnings such as an unknown price. Every call the
// client makes is a span when tracing is on (model/trace.go).
func New(cfg Config, warn func(string)) (Client, error) {
	c, err := build(cfg, warn)
	if err != nil {
		return nil, err
	}
	return traced(c, cfg), nil
}

func build(cfg Config, warn func(string)) (Client, error) {
	if warn == nil {
		warn = func(string) {}
	}
	if path, ok := strings.CutPrefix(cfg.Name, ReplayPrefix); ok {
		return NewReplay(path)
	}
	p, err := checkRequest(&cfg)
	if err != nil {
		return nil, err
	}
	cfg.BaseURL = ResolveBaseURL(cfg.API, cfg.BaseURL)
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("model: base_url %q is not an http(s) URL", cfg.BaseURL)
	}
	if cfg.APIKeyEnv == "" {
		cfg.APIKeyEnv = DefaultKeyEnv(cfg.API)
	}
	key := keyring.Getenv(cfg.APIKeyEnv)
	if key == "" && !isLocalHost(u.Hostname()) && cfg.HTTPClient == nil {
		// Names the variable, never a value.
		return nil, fmt.Errorf("model: no API key: set %s (or point model.api_key_env at the variable that holds it)", cfg.APIKeyEnv)
	}
	if err := checkLimits(&cfg); err != nil {
		return nil, err
	}
	return p.New(cfg, key, warn)
}

// checkRequest checks the settings that shape every request (the wire
// API, thinking, effort, name, action field and response format), fills
// in their defaults and returns the API's entry.
func checkRequest(cfg *Config) (Provider, error) {
	if cfg.API == "" {
		cfg.API = DefaultAPI
	}
	p, ok := LookupProvider(cfg.API)
	if !ok {
		return p, fmt.Errorf("model: api is %q: use %s", cfg.API, ProviderChoices())
	}
	switch cfg.Thinking {
	case "", ThinkingOff:
		cfg.Thinking = ThinkingOff
	case ThinkingAdaptive:
		if !p.Thinking {
			return p, fmt.Errorf("model: thinking %q is an Anthropic setting (model.api: %s); for %s use model.reasoning_effort", cfg.Thinking, thinkingAPIs(), cfg.API)
		}
	default:
		return p, fmt.Errorf("model: thinking is %q: use %s or %s", cfg.Thinking, ThinkingOff, ThinkingAdaptive)
	}
	if !validEffort(cfg.ReasoningEffort) {
		return p, fmt.Errorf("model: reasoning_effort is %q: use none, minimal, low, medium, high, xhigh or max (or leave it empty for the model's default)", cfg.ReasoningEffort)
	}
	if strings.TrimSpace(cfg.Name) == "" {
		return p, fmt.Errorf("model: no model name: set model.name (or replay:<file.jsonl>)")
	}
	if cfg.ActionField == "" {
		cfg.ActionField = FieldBash
	} else if !fieldName.MatchString(cfg.ActionField) {
		return p, fmt.Errorf("model: action_field is %q: a JSON field name such as %s or %s", cfg.ActionField, FieldBash, FieldPython)
	}
	switch cfg.ResponseFormat {
	case "":
		cfg.ResponseFormat = FormatJSONSchema
	case FormatJSONSchema, FormatJSONObject, FormatNone:
	default:
		return p, fmt.Errorf("model: response_format is %q: use %s, %s or %s", cfg.ResponseFormat, FormatJSONSchema, FormatJSONObject, FormatNone)
	}
	return p, nil
}

// checkLimits checks the timeout, retry and price settings and fills in
// the defaults of the timeout and retries.
func checkLimits(cfg *Config) error {
	if cfg.TimeoutSeconds < 0 || cfg.Retry.Attempts < 0 || cfg.Retry.InitialDelaySeconds < 0 || cfg.Retry.MaxDelaySeconds < 0 {
		return fmt.Errorf("model: timeout_seconds and retry values must not be negative")
	}
	if cfg.Price.Input < 0 || cfg.Price.Output < 0 || cfg.Price.CachedInput < 0 || cfg.Price.CacheWrite < 0 {
		return fmt.Errorf("model: price_per_mtok must not be negative")
	}
	if cfg.TimeoutSeconds == 0 {
		cfg.TimeoutSeconds = DefaultTimeoutSeconds
	}
	if cfg.Retry.Attempts == 0 {
		cfg.Retry.Attempts = DefaultAttempts
	}
	if cfg.Retry.InitialDelaySeconds == 0 {
		cfg.Retry.InitialDelaySeconds = DefaultInitialDelaySeconds
	}
	if cfg.Retry.MaxDelaySeconds == 0 {
		cfg.Retry.MaxDelaySeconds = DefaultMaxDelaySeconds
	}
	return nil
}

// thinkingAPIs are the model.api values that take model.thinking.
func thinkingAPIs() string {
	var names []string
	for _, p := range Providers() {
		if p.Thinking {
			names = append(names, p.Name)
		}
	}
	return strings.Join(names, " or ")
}

// DefaultKeyEnv is the variable that holds the key for an API when
// model.api_key_env is empty.
func DefaultKeyEnv(api string) string {
	return providerOf(api).KeyEnv
}

// ResolveBaseURL is the base URL an API uses: the configured one, else the
// provider's variable (Provider.BaseURLEnv: $OPENAI_BASE_URL,
// $ANTHROPIC_BASE_URL), else the provider's own. A bare host gets /v1, so
// both "https://host" and "https://host/v1" work; a URL with a path of its
// own (a gateway's "/api/openai") is kept as it is.
func ResolveBaseURL(api, base string) string {
	p := providerOf(api)
	if base == "" {
		base = os.Getenv(p.BaseURLEnv)
	}
	if base == "" {
		return p.BaseURL
	}
	base = strings.TrimRight(base, "/")
	if u, err := url.Parse(base); err == nil && u.Host != "" && u.Path == "" {
		base += "/v1"
	}
	return base
}

// apiRoot is a resolved base URL without its /v1, for the SDKs that add
// the version to every path themselves.
func apiRoot(base string) string {
	return strings.TrimSuffix(strings.TrimRight(base, "/"), "/v1")
}

func validEffort(e string) bool {
	switch e {
	case "", "none", "minimal", "low", "medium", "high", "xhigh", "max":
		return true
	}
	return false
}

// isLocalHost reports whether host is this machine, where servers such as
// Ollama or LM Studio run without a key.
func isLocalHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// fieldName is what an action field may be called: a JSON key the schema
// and the prompts can name.
var fieldName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
