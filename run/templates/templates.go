// Package templates holds wright's prompts as pongo2 templates embedded in
// the binary. A config value names a built-in template as "builtin:NAME";
// any other value is the template text itself, so users can override a
// prompt inline in YAML.
package templates

import (
	"embed"
	"fmt"
	"strings"
	"sync"

	"github.com/flosch/pongo2/v6"
)

//go:embed *.j2
var files embed.FS

const builtinPrefix = "builtin:"

// Prompts are plain text, not HTML: escaping would show the model
// "&lt;div&gt;" for the page source it printed, and cost tokens. pongo2 only
// has a process-wide switch, and this package is its only user.
func init() { pongo2.SetAutoescape(false) }

// Source returns the template text a config value stands for.
func Source(value string) (string, error) {
	name, ok := strings.CutPrefix(value, builtinPrefix)
	if !ok {
		return value, nil
	}
	b, err := files.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("no built-in template %q", name)
	}
	return string(b), nil
}

// Set compiles templates once and renders them many times.
type Set struct {
	mu    sync.Mutex
	cache map[string]*pongo2.Template
}

// Render renders the template a config value stands for with vars.
func (s *Set) Render(value string, vars map[string]any) (string, error) {
	tpl, err := s.compile(value)
	if err != nil {
		return "", err
	}
	out, err := tpl.Execute(pongo2.Context(vars))
	if err != nil {
		return "", fmt.Errorf("render template %s: %w", describe(value), err)
	}
	return strings.TrimSpace(out), nil
}

// Check compiles value and reports a syntax error, so that a broken prompt
// fails before anything starts.
func (s *Set) Check(value string) error {
	_, err := s.compile(value)
	return err
}

func (s *Set) compile(value string) (*pongo2.Template, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if tpl, ok := s.cache[value]; ok {
		return tpl, nil
	}
	src, err := Source(value)
	if err != nil {
		return nil, err
	}
	tpl, err := pongo2.FromString(src)
	if err != nil {
		return nil, fmt.Errorf("parse template %s: %w", describe(value), err)
	}
	if s.cache == nil {
		s.cache = map[string]*pongo2.Template{}
	}
	s.cache[value] = tpl
	return tpl, nil
}

func describe(value string) string {
	if strings.HasPrefix(value, builtinPrefix) {
		return value
	}
	first, _, _ := strings.Cut(value, "\n")
	if len(first) > 40 {
		first = first[:40] + "..."
	}
	return fmt.Sprintf("%q", first)
}
