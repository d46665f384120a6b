package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each skill's front matter names it as its folder is named and says when
// to use it; install writes them all and a second install replaces them.
func TestSkillsInstallWithFrontMatter(t *testing.T) {
	all := All()
	if len(all) != 2 || all[0].Name != "wright-loop" || all[1].Name != "wright-web" {
		t.Fatalf("skills: %+v", all)
	}
	for _, s := range all {
		if len(s.Description) < 80 || len(s.Description) > 400 || !strings.Contains(s.Description, "Use ") {
			t.Errorf("%s's description (%d characters) should say what it is and when to use it: %q", s.Name, len(s.Description), s.Description)
		}
	}
	dir := t.TempDir()
	for range 2 {
		written, err := Install(dir)
		if err != nil || len(written) != 2 {
			t.Fatalf("install: %v %v", written, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "wright-web", FileName))
	if err != nil || string(b) != all[1].Text {
		t.Errorf("wright-web as written: %v", err)
	}
	for agent, want := range map[string]string{"claude": ".claude/skills", "codex": ".agents/skills", "copilot": ".github/skills", "cursor": ".cursor/skills"} {
		got, err := Folder(agent, "", "/p", "/h", false)
		if err != nil || got != filepath.Join("/p", want) {
			t.Errorf("%s: %s %v", agent, got, err)
		}
	}
	if got, _ := Folder("copilot", "", "/p", "/h", true); got != filepath.Join("/h", ".copilot", "skills") {
		t.Errorf("copilot --user: %s", got)
	}
	if _, err := Folder("emacs", "", "/p", "/h", false); err == nil || !strings.Contains(err.Error(), "claude, codex, copilot, cursor") {
		t.Errorf("unknown agent: %v", err)
	}
}
