package live

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"wright/trust/sandbox"
)

// The test binary stands in for wright inside a sandbox: run as
// `<test> sandbox-init ...` it is sandbox.Init.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.InitCommand {
		err := sandbox.Init(os.Args[2:])
		fmt.Fprintln(os.Stderr, err)
		os.Exit(126)
	}
	os.Exit(m.Run())
}

// Under bubblewrap the live runner still drives the page (the driver's
// socket is in reach) and a timed-out step is still interrupted rather
// than restarted, but it cannot see wright's processes, write outside the
// workspace, or reach the network except through the policy.
func TestSandboxedRunner(t *testing.T) {
	if ok, why := sandbox.BwrapAvailable(); !ok {
		t.Skip("bubblewrap cannot run here: " + why)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	site := fixtureSite(t)
	port := site.URL[strings.LastIndexByte(site.URL, ':')+1:]
	e, _ := startEnv(t, site.URL+"/", func(o *Options) {
		o.StepTimeout = 2 * time.Second
		o.BlockedDomains = []string{"blocked.localhost"}
		o.Sandbox = &sandbox.Spec{ReadOnly: []string{self}, Wright: self}
	})
	code := fmt.Sprintf(`import os, urllib.request, urllib.error
kept = "still here"
print("pid", os.getpid())
print("title", page.title())
def get(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return str(r.status)
    except urllib.error.HTTPError as e:
        return str(e.code)
    except Exception as e:
        return type(e).__name__
print("allowed", get(%[1]q))
print("blocked", get("http://blocked.localhost:%[2]s/"))
try:
    open("/proc/%[3]d/environ").read()
    print("SEES-WRIGHT")
except OSError:
    pass
try:
    open("/usr/probe", "w")
    print("WROTE-USR")
except OSError:
    pass
`, site.URL+"/", port, os.Getpid())
	obs := step(t, e, 1, code)
	wantSuccess(t, obs)
	out := str(obs, "python_output")
	for _, want := range []string{fmt.Sprintf("pid %d", sandbox.FirstPID), "allowed 200", "blocked 403"} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "SEES") || strings.Contains(out, "WROTE") || !strings.Contains(out, "title ") {
		t.Errorf("confinement:\n%s", out)
	}
	obs = step(t, e, 2, "n = 0\nwhile True:\n    n += 1\n")
	if obs["timed_out"] != true || obs["restarted"] != false || !strings.Contains(str(obs, "exception"), "KeyboardInterrupt") {
		t.Errorf("timeout in the sandbox: timed_out %v restarted %v %s", obs["timed_out"], obs["restarted"], str(obs, "exception"))
	}
	obs = step(t, e, 3, "print(kept)")
	if str(obs, "python_output") != "still here" {
		t.Errorf("namespace lost: %q", obs["python_output"])
	}
}
