package keyring

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestCredentials(t *testing.T) {
	got := Credentials([]string{"OPENAI_API_KEY=a", "MY_APIKEY=b", "OPENROUTER_API_KEY=c", "PATH=/bin", "KEYBOARD=x", "API_KEYS=y",
		"OTEL_EXPORTER_OTLP_HEADERS=Authorization=Basic%20x", "OTEL_EXPORTER_OTLP_TRACES_HEADERS=k=v", "OTEL_EXPORTER_OTLP_ENDPOINT=http://c:4318"})
	if strings.Join(got, ",") != "OPENAI_API_KEY,MY_APIKEY,OPENROUTER_API_KEY,OTEL_EXPORTER_OTLP_HEADERS,OTEL_EXPORTER_OTLP_TRACES_HEADERS" {
		t.Errorf("Credentials = %v", got)
	}
}

// The re-exec itself, in a child copy of the test binary: the child drops
// a variable, comes back without it in /proc/self/environ, and still
// serves its value from memory.
func TestDropReexecs(t *testing.T) {
	if os.Getenv("KEYRING_TEST_CHILD") == "1" {
		if err := Init(); err != nil {
			t.Fatal(err)
		}
		if err := Drop([]string{"KEYRING_TEST_SECRET"}); err != nil {
			t.Fatal(err)
		}
		env, _ := os.ReadFile("/proc/self/environ")
		if strings.Contains(string(env), "hunter2-value") {
			t.Fatal("the value is still in /proc/self/environ")
		}
		if Getenv("KEYRING_TEST_SECRET") != "hunter2-value" || os.Getenv("KEYRING_TEST_SECRET") != "" {
			t.Fatalf("Getenv %q, os.Getenv %q", Getenv("KEYRING_TEST_SECRET"), os.Getenv("KEYRING_TEST_SECRET"))
		}
		if err := NoDump(); err != nil {
			t.Fatal(err)
		}
		return
	}
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDropReexecs$", "-test.v")
	cmd.Env = append(os.Environ(), "KEYRING_TEST_CHILD=1", "KEYRING_TEST_SECRET=hunter2-value")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
