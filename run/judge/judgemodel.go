package judge

import (
	"errors"
	"fmt"
	"strings"

	"wright/model"
	"wright/run/judge/keyproxy"
)

// JudgeModel is how `wright reflect` and `wright image-qa` reach a model:
// the values given on the command line, each falling back to the
// environment. The harness (or a config file, once the lead wires one in)
// can fill it the same way.
type JudgeModel struct {
	Name           string  // --model; else $WRIGHT_MODEL, $WRIGHT_MODEL_NAME
	API            string  // --api; else $WRIGHT_MODEL_API; else chat
	BaseURL        string  // --base-url; else $WRIGHT_MODEL_BASE_URL, the API's provider variable and default
	APIKeyEnv      string  // --api-key-env; else $WRIGHT_MODEL_API_KEY_ENV, the API's default (ANTHROPIC_API_KEY, OPENAI_API_KEY)
	TimeoutSeconds float64 // --timeout-seconds: per request; 0 is the client's default
	MaxAttempts    int     // --max-attempts: per request, transient failures; 0 is the client's default
}

// Resolve turns the settings into a model.Config and the endpoint to record
// in a verdict. getenv is os.Getenv outside tests.
//
// When no API key is available and WRIGHT_MODEL_SOCKET names the harness's
// key proxy, requests go through the socket and the proxy adds the key: this
// is how the judge works from the model's own shell, which never holds the
// key. An explicit --base-url always wins over the socket.
func (j JudgeModel) Resolve(getenv func(string) string) (model.Config, string, error) {
	first := func(vals ...string) string {
		for _, v := range vals {
			if strings.TrimSpace(v) != "" {
				return strings.TrimSpace(v)
			}
		}
		return ""
	}
	api := first(j.API, getenv(keyproxy.APIEnv), model.DefaultAPI)
	cfg := model.Config{
		Name:           first(j.Name, getenv(keyproxy.ModelEnv), getenv("WRIGHT_MODEL_NAME")),
		API:            api,
		APIKeyEnv:      first(j.APIKeyEnv, getenv("WRIGHT_MODEL_API_KEY_ENV"), model.DefaultKeyEnv(api)),
		TimeoutSeconds: j.TimeoutSeconds,
		ResponseFormat: model.FormatNone, // the judge answers in prose with labelled lines
	}
	cfg.Retry.Attempts = j.MaxAttempts
	if j.TimeoutSeconds < 0 || j.MaxAttempts < 0 {
		return cfg, "", &ConfigError{Err: errors.New("--timeout-seconds and --max-attempts must not be negative")}
	}
	if cfg.Name == "" {
		return cfg, "", &ConfigError{Err: fmt.Errorf("no judge model: pass --model or set %s", keyproxy.ModelEnv)}
	}
	if strings.HasPrefix(cfg.Name, model.ReplayPrefix) {
		return cfg, cfg.Name, nil
	}
	socket := getenv(keyproxy.SocketEnv)
	if j.BaseURL == "" && socket != "" && getenv(cfg.APIKeyEnv) == "" {
		cfg.BaseURL = keyproxy.BaseURL
		cfg.HTTPClient = keyproxy.HTTPClient(socket)
		return cfg, "unix:" + socket + " (wright key proxy)", nil
	}
	p, ok := model.LookupProvider(api)
	if !ok {
		// model.New refuses the API; until then its base URL is the
		// default's, as ResolveBaseURL gives it.
		p, _ = model.LookupProvider(model.DefaultAPI)
	}
	cfg.BaseURL = model.ResolveBaseURL(api, first(j.BaseURL, getenv("WRIGHT_MODEL_BASE_URL"), getenv(p.BaseURLEnv)))
	return cfg, cfg.BaseURL, nil
}
