package config

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// The reference names every key wright reads, with base.yaml's defaults
// and comments, and the built-in layers.
func configType() reflect.Type { return reflect.TypeOf(Config{}) }

func TestReferenceCoversEveryKey(t *testing.T) {
	ref, err := Reference()
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("WRIGHT_PRINT_REFERENCE") != "" {
		t.Log(ref)
	}
	known, free := map[string]bool{}, []string{}
	knownKeys(configType(), "", known, &free)
	for k := range known {
		if !strings.Contains(ref, "`"+k+"`") && !strings.Contains(ref, "`"+k[:strings.LastIndexByte(k, '.')]+"`") {
			t.Errorf("the reference lacks %s", k)
		}
	}
	for _, want := range []string{"| `agent.step_limit` | `100` | model calls before the run exits LimitsExceeded |",
		"| `model.retry` | `{attempts: 5, initial_delay_seconds: 1, max_delay_seconds: 30}` |", "### local_browser", "| `agent.mode` | `browser` |"} {
		if !strings.Contains(ref, want) {
			t.Errorf("the reference lacks %q", want)
		}
	}
}
