package model_test

import (
	"reflect"
	"testing"

	"github.com/go-viper/mapstructure/v2"

	"wright/model"
)

// The lead decodes the config's model section with mapstructure: every key
// of run/config/builtin/base.yaml must land in its field.
func TestConfigDecodesFromConfigKeys(t *testing.T) {
	section := map[string]any{
		"name":                          "gpt-4.1",
		"base_url":                      "https://openrouter.ai/api/v1",
		"api_key_env":                   "OPENROUTER_API_KEY",
		"action_field":                  "python_code",
		"response_format":               "json_object",
		"temperature":                   0,
		"max_tokens":                    4096,
		"timeout_seconds":               180,
		"price_per_mtok":                map[string]any{"input": 2, "output": 8.5},
		"retry":                         map[string]any{"attempts": 5, "initial_delay_seconds": 1, "max_delay_seconds": 30},
		"headers":                       map[string]any{"http-referer": "https://example.com"},
		"attach_observation_screenshot": true,
	}
	var got model.Config
	md := &mapstructure.Metadata{}
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{Result: &got, WeaklyTypedInput: true, Metadata: md, ErrorUnused: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := dec.Decode(section); err != nil {
		t.Fatalf("decode: %v", err)
	}
	zero := 0.0
	want := model.Config{
		Name: "gpt-4.1", BaseURL: "https://openrouter.ai/api/v1", APIKeyEnv: "OPENROUTER_API_KEY",
		ActionField: "python_code", ResponseFormat: "json_object", Temperature: &zero,
		MaxTokens: 4096, TimeoutSeconds: 180,
		Price:                       model.Price{Input: 2, Output: 8.5},
		Retry:                       model.Retry{Attempts: 5, InitialDelaySeconds: 1, MaxDelaySeconds: 30},
		Headers:                     map[string]string{"http-referer": "https://example.com"},
		AttachObservationScreenshot: true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded\n %+v\nwant\n %+v", got, want)
	}
}
