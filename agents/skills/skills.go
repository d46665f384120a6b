// Package skills holds the skill files wright gives coding agents (Claude
// Code, Codex, Copilot, Cursor): a SKILL.md each, with the front matter those
// agents read, embedded in the binary and written where each agent looks by
// `wright skills install`.
package skills

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"wright/internal/atomicfile"
)

// files are the skills, one folder each, named as the skill is.
//
//go:embed files
var files embed.FS

// FileName is the file each skill folder holds.
const FileName = "SKILL.md"

// A Skill is one skill as shipped.
type Skill struct {
	// Name is the front matter's name and the folder's.
	Name string
	// Description is the front matter's description: what an agent reads
	// to decide whether to load the rest.
	Description string
	// Text is the whole SKILL.md.
	Text string
}

// All returns the shipped skills, sorted by name.
func All() []Skill {
	entries, err := fs.ReadDir(files, "files")
	if err != nil {
		panic(err) // embedded at build time: a failure here is a broken build
	}
	var out []Skill
	for _, e := range entries {
		b, err := files.ReadFile("files/" + e.Name() + "/" + FileName)
		if err != nil {
			panic(err)
		}
		name, desc := frontMatter(string(b))
		out = append(out, Skill{Name: name, Description: desc, Text: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// frontMatter reads name and description from a SKILL.md's leading block.
func frontMatter(text string) (name, desc string) {
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return "", ""
	}
	block, _, _ := strings.Cut(rest, "\n---")
	for _, line := range strings.Split(block, "\n") {
		k, v, _ := strings.Cut(line, ":")
		switch strings.TrimSpace(k) {
		case "name":
			name = strings.TrimSpace(v)
		case "description":
			desc = strings.TrimSpace(v)
		}
	}
	return name, desc
}

// An Agent is a coding agent and the folders it reads skills from.
type Agent struct {
	Name string
	// Project is the skills folder relative to a project's root; User the
	// one relative to the home directory.
	Project, User string
}

// Agents are the agents install knows, by name.
var Agents = map[string]Agent{
	"claude":  {"claude", ".claude/skills", ".claude/skills"},
	"codex":   {"codex", ".agents/skills", ".agents/skills"},
	"copilot": {"copilot", ".github/skills", ".copilot/skills"},
	"cursor":  {"cursor", ".cursor/skills", ".cursor/skills"},
}

// AgentNames lists Agents' keys, sorted.
func AgentNames() []string {
	var names []string
	for n := range Agents {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Folder is where install writes for agent: dir itself when it is set,
// else the agent's user folder under home when user is set, else its
// project folder under root.
func Folder(agent, dir, root, home string, user bool) (string, error) {
	a, ok := Agents[agent]
	if !ok {
		return "", fmt.Errorf("no agent %q: use one of %s", agent, strings.Join(AgentNames(), ", "))
	}
	switch {
	case dir != "":
		return dir, nil
	case user:
		if home == "" {
			return "", errors.New("no home directory: name the folder with --dir")
		}
		return filepath.Join(home, filepath.FromSlash(a.User)), nil
	}
	return filepath.Join(root, filepath.FromSlash(a.Project)), nil
}

// Install writes every skill as folder/<name>/SKILL.md, replacing an older
// copy, and returns the files written.
func Install(folder string) ([]string, error) {
	var written []string
	for _, s := range All() {
		d := filepath.Join(folder, s.Name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return written, fmt.Errorf("make %s: %w", d, err)
		}
		p := filepath.Join(d, FileName)
		if err := atomicfile.Write(p, []byte(s.Text), 0o644); err != nil {
			return written, fmt.Errorf("write %s: %w", p, err)
		}
		written = append(written, p)
	}
	return written, nil
}
