package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// wright skills install writes both skills, with their front matter, where
// each agent reads them; --dir and --user move them, an unknown agent is a
// usage error.
func TestSkillsInstall(t *testing.T) {
	t.Parallel()
	for agent, folder := range map[string]string{"claude": ".claude/skills", "codex": ".agents/skills", "copilot": ".github/skills", "cursor": ".cursor/skills"} {
		r := wright(t, "skills", "install", "--agent", agent, "--dir", filepath.Join(t.TempDir(), "x"))
		if r.code != 0 {
			t.Fatalf("install --dir: %d %s", r.code, r.stderr.String())
		}
		home := t.TempDir()
		r = wrightIn(t, home, []string{"HOME=" + home}, "skills", "install", "--agent", agent)
		if r.code != 0 {
			t.Fatalf("install --agent %s: %d %s", agent, r.code, r.stderr.String())
		}
		for _, name := range []string{"wright-web", "wright-loop"} {
			b, err := os.ReadFile(filepath.Join(home, filepath.FromSlash(folder), name, "SKILL.md"))
			if err != nil {
				t.Fatalf("%s: %v (stdout %s)", agent, err, r.stdout.String())
			}
			text := string(b)
			if !strings.HasPrefix(text, "---\nname: "+name+"\ndescription: ") || !strings.Contains(text, "wright ") {
				t.Errorf("%s/%s has no front matter:\n%.200s", agent, name, text)
			}
			if words := len(strings.Fields(text)); words < 150 || words > 600 {
				t.Errorf("%s is %d words: a skill is a few hundred", name, words)
			}
		}
	}
	home := t.TempDir()
	r := wrightIn(t, t.TempDir(), []string{"HOME=" + home}, "skills", "install", "--agent", "copilot", "--user")
	if _, err := os.Stat(filepath.Join(home, ".copilot", "skills", "wright-loop", "SKILL.md")); r.code != 0 || err != nil {
		t.Errorf("--user: %d %v %s", r.code, err, r.stderr.String())
	}
	if r := wright(t, "skills", "install", "--agent", "emacs"); r.code != 2 || !strings.Contains(r.stderr.String(), "claude, codex, copilot, cursor") {
		t.Errorf("unknown agent: %d %s", r.code, r.stderr.String())
	}
}

// wright mcp config prints each client's snippet: JSON that parses with
// the server entry the client reads, TOML for Codex.
func TestMCPConfigSnippets(t *testing.T) {
	t.Parallel()
	for agent, path := range map[string][]string{"claude": {"mcpServers", "wright"}, "cursor": {"mcpServers", "wright"}, "copilot": {"mcpServers", "wright"}, "vscode": {"servers", "wright"}} {
		for _, url := range []string{"", "http://127.0.0.1:8931/mcp"} {
			args := []string{"mcp", "config", "--agent", agent, "--arg", "-c", "--arg", "my.yaml"}
			if url != "" {
				args = append(args, "--url", url)
			}
			r := wright(t, args...)
			var v map[string]any
			if err := json.Unmarshal(r.stdout.Bytes(), &v); r.code != 0 || err != nil {
				t.Fatalf("%s: %d %v\n%s", agent, r.code, err, r.stdout.String())
			}
			srv, _ := v[path[0]].(map[string]any)[path[1]].(map[string]any)
			switch {
			case srv == nil:
				t.Errorf("%s: no %v in %s", agent, path, r.stdout.String())
			case url == "" && (srv["command"] != "wright" || !strings.Contains(r.stdout.String(), `"my.yaml"`)):
				t.Errorf("%s stdio: %s", agent, r.stdout.String())
			case url != "" && (srv["url"] != url || !strings.Contains(r.stdout.String(), "Bearer ")):
				t.Errorf("%s http: %s", agent, r.stdout.String())
			}
		}
	}
	r := wright(t, "mcp", "config", "--agent", "codex")
	if r.code != 0 || !strings.Contains(r.stdout.String(), "[mcp_servers.wright]\ncommand = \"wright\"\nargs = [\"mcp\"]") {
		t.Errorf("codex: %d %s", r.code, r.stdout.String())
	}
	if r := wright(t, "mcp", "--http", "0.0.0.0:0"); r.code != 2 || !strings.Contains(r.stderr.String(), "--allow-remote") {
		t.Errorf("a non-loopback address without --allow-remote: %d %s", r.code, r.stderr.String())
	}
}

// wrightIn runs the binary in dir with extra environment.
func wrightIn(t *testing.T, dir string, env []string, args ...string) *cliRun {
	t.Helper()
	cmd := exec.Command(wrightBin, args...)
	cmd.Env = append(append(os.Environ(), "OPENAI_API_KEY="+testKey), env...)
	cmd.Dir = dir
	r := &cliRun{}
	cmd.Stdout, cmd.Stderr = &r.stdout, &r.stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}
