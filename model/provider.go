package model

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// Provider is one wire API wright speaks: everything the rest of the
// program needs to know about it, so that config checks, the key proxy,
// doctor, tracing and the test stand-in read one entry instead of each
// branching on the API's name. Adding an API is a file that defines its
// entry (and its client) and one line in builtinProviders.
type Provider struct {
	// Name is the model.api value that selects it.
	Name string
	// New builds the client from a checked config whose BaseURL is
	// resolved; key is the value of the key variable, empty for a local
	// server or when cfg.HTTPClient adds credentials itself.
	New func(cfg Config, key string, warn func(string)) (Client, error)

	// KeyEnv is the variable holding the key when model.api_key_env is
	// empty.
	KeyEnv string
	// BaseURLEnv is read when model.base_url is empty; BaseURL is the
	// provider's own endpoint when that is empty too. Either is
	// normalised as ResolveBaseURL says.
	BaseURLEnv, BaseURL string

	// AuthHeader carries the key, written as AuthPrefix then the key
	// ("Authorization: Bearer sk-..."). Callers that send requests of
	// their own (the key proxy, doctor) set it with Authorize.
	AuthHeader, AuthPrefix string
	// Headers are what the endpoint refuses a request without (a
	// version), set by Authorize when the request has none.
	Headers map[string]string

	// Path is where a call is POSTed, under the base URL: the key proxy
	// forwards it and the test stand-in tells the APIs apart by it.
	Path string
	// ProbePath is answered by a GET without spending tokens (the list
	// of models): doctor asks it, and the key proxy forwards it.
	ProbePath string
	// ParseUsage reads the token usage from an answer's raw body (the key
	// proxy meters the calls it forwards with it); zero when the body
	// has none. PromptTokens is the whole prompt, cache reads and writes
	// included.
	ParseUsage func(body []byte) Usage

	// TraceName is the gen_ai.provider.name of the calls' spans.
	TraceName string
	// Thinking: the API takes model.thinking adaptive.
	Thinking bool
}

// Authorize sets the key (unless it is empty) and the required headers
// on a request the caller builds itself.
func (p Provider) Authorize(h http.Header, key string) {
	if key != "" {
		h.Set(p.AuthHeader, p.AuthPrefix+key)
	}
	for k, v := range p.Headers {
		if h.Get(k) == "" {
			h.Set(k, v)
		}
	}
}

// builtinProviders are the APIs wright ships, in the order messages list
// them; each entry lives in its own provider_<name>.go.
var builtinProviders = []Provider{chatProvider, responsesProvider, anthropicProvider}

// registry is the table. The built-in entries go in on first use rather
// than in its initialiser, for two reasons: the clients' constructors
// reach helpers that read it (which Go would call an initialisation
// cycle), and they come first whatever the order of the init functions
// that register more.
var registry struct {
	sync.RWMutex
	once sync.Once
	list []Provider
}

func table() *[]Provider {
	registry.once.Do(func() {
		for _, p := range builtinProviders {
			registry.list = appendProvider(registry.list, p)
		}
	})
	return &registry.list
}

// appendProvider adds p to list. A missing field or a second entry of a
// name is a mistake in the program, found when it starts, so it panics as
// http.Handle does rather than leaving a half-known API to fail later.
func appendProvider(list []Provider, p Provider) []Provider {
	if p.Name == "" || p.New == nil || p.AuthHeader == "" || p.Path == "" || p.ParseUsage == nil {
		panic(fmt.Sprintf("model: provider %q lacks a name, constructor, auth header, path or usage parser", p.Name))
	}
	for _, q := range list {
		if q.Name == p.Name {
			panic(fmt.Sprintf("model: provider %q registered twice", p.Name))
		}
	}
	return append(list, p)
}

// Register adds a wire API to the table, after the built-in ones; call it
// from an init function. It panics on an entry without a name,
// constructor, auth header, path or usage parser, and on a name that is
// taken.
func Register(p Provider) {
	registry.Lock()
	defer registry.Unlock()
	list := table()
	*list = appendProvider(*list, p)
}

// LookupProvider is the entry of a model.api value; "" is DefaultAPI.
func LookupProvider(api string) (Provider, bool) {
	if api == "" {
		api = DefaultAPI
	}
	registry.RLock()
	defer registry.RUnlock()
	for _, p := range *table() {
		if p.Name == api {
			return p, true
		}
	}
	return Provider{}, false
}

// Providers is the table, in registration order (the built-in ones first).
func Providers() []Provider {
	registry.RLock()
	defer registry.RUnlock()
	return append([]Provider(nil), *table()...)
}

// ProviderChoices lists the model.api values for a message: "chat,
// responses or anthropic".
func ProviderChoices() string {
	var names []string
	for _, p := range Providers() {
		names = append(names, p.Name)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// providerOf is api's entry, or the default's for a value the table does
// not hold: helpers such as DefaultKeyEnv answer for any value, and the
// value itself is refused where the config is checked.
func providerOf(api string) Provider {
	if p, ok := LookupProvider(api); ok {
		return p
	}
	p, _ := LookupProvider(DefaultAPI)
	return p
}
