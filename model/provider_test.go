package model_test

import (
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"wright/model"
	"wright/model/modeltest"
)

// The built-in entries, in the order messages list them, with the key
// headers the key proxy and doctor write from them.
func TestBuiltinProviders(t *testing.T) {
	var names []string
	for _, p := range model.Providers() {
		names = append(names, p.Name)
	}
	if want := []string{model.APIChat, model.APIResponses, model.APIAnthropic}; !reflect.DeepEqual(names, want) {
		t.Fatalf("Providers() = %v, want %v", names, want)
	}
	if got := model.ProviderChoices(); got != "chat, responses or anthropic" {
		t.Errorf("ProviderChoices() = %q", got)
	}
	if p, ok := model.LookupProvider(""); !ok || p.Name != model.DefaultAPI {
		t.Errorf(`LookupProvider("") = %q, %v: want the default`, p.Name, ok)
	}
	if _, ok := model.LookupProvider("gemini"); ok {
		t.Error("an unknown API was found")
	}
	tests := []struct {
		api  string
		want http.Header
	}{
		{model.APIChat, http.Header{"Authorization": {"Bearer sk-x"}}},
		{model.APIResponses, http.Header{"Authorization": {"Bearer sk-x"}}},
		{model.APIAnthropic, http.Header{"X-Api-Key": {"sk-x"}, "Anthropic-Version": {"2023-06-01"}}},
	}
	for _, tt := range tests {
		p, _ := model.LookupProvider(tt.api)
		h := http.Header{}
		p.Authorize(h, "sk-x")
		if !reflect.DeepEqual(h, tt.want) {
			t.Errorf("%s: Authorize wrote %v, want %v", tt.api, h, tt.want)
		}
		// No key: only what the API requires, and a caller's own
		// version is kept.
		h = http.Header{"Anthropic-Version": {"2099-01-01"}}
		p.Authorize(h, "")
		if h.Get(p.AuthHeader) != "" || h.Get("Anthropic-Version") != "2099-01-01" {
			t.Errorf("%s: Authorize without a key wrote %v", tt.api, h)
		}
	}
}

// Each entry's usage parser reads its own API's answer: the whole prompt,
// cache reads and writes included.
func TestProviderParsesUsage(t *testing.T) {
	for _, p := range model.Providers() {
		t.Run(p.Name, func(t *testing.T) {
			srv := modeltest.New(t, modeltest.Reply("x").WithUsage(1000, 30).WithCache(600, 100))
			resp, err := http.Post(srv.URL+"/v1"+p.Path, "application/json", strings.NewReader(`{"model":"m"}`))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			want := model.Usage{PromptTokens: 1000, CachedTokens: 600, CompletionTokens: 30}
			if p.Name == model.APIAnthropic {
				want.CacheWriteTokens = 100 // the others report no writes
			}
			if got := p.ParseUsage(body); got != want {
				t.Errorf("ParseUsage = %+v, want %+v from %s", got, want, body)
			}
			if got := p.ParseUsage([]byte("not json")); got != (model.Usage{}) {
				t.Errorf("ParseUsage of a non-answer = %+v", got)
			}
		})
	}
}

// A half-made entry or a name already taken is refused at once, and the
// table is left as it was.
func TestRegisterRefusesBadEntries(t *testing.T) {
	chat, _ := model.LookupProvider(model.APIChat)
	incomplete := chat
	incomplete.Name, incomplete.ParseUsage = "half", nil
	for _, p := range []model.Provider{chat, incomplete, {Name: "bare"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) was accepted", p.Name)
				}
			}()
			model.Register(p)
		}()
	}
	if got := model.ProviderChoices(); got != "chat, responses or anthropic" {
		t.Errorf("the table changed: %s", got)
	}
}
