package main

import (
	"regexp"
	"strconv"
	"strings"
)

// element is one line of a snapshot that carries a ref.
type element struct {
	Role, Name, Ref string
}

var (
	refRE = regexp.MustCompile(`\[ref=([A-Za-z0-9_]+)\]`)
	// roleRE finds "- role" and its quoted name; the first match on a
	// line is the node (a diff marker before it is no letter).
	roleRE = regexp.MustCompile(`-\s([a-z]+)(?:\s("(?:[^"\\]|\\.)*"))?`)
	// removedRE is a line a change list marks as gone ("- " then the
	// snapshot's own "- "): its ref no longer names anything. A whole
	// snapshot never has it: its lines start with "- " and a role, or
	// with indentation.
	removedRE = regexp.MustCompile(`^-\s+-\s`)
)

// parseElements reads the elements with refs out of a tool's text, in the
// order they appear. Both servers write ARIA snapshots as YAML lists
// ("- role "name" [ref=e5]"); wright's change lists put a marker (+, -, ~
// or a space) before each line, and the lines it marks removed are left
// out.
func parseElements(text string) []element {
	var out []element
	for _, line := range strings.Split(text, "\n") {
		m := refRE.FindStringSubmatch(line)
		if m == nil || removedRE.MatchString(line) {
			continue
		}
		r := roleRE.FindStringSubmatch(line)
		if r == nil {
			continue
		}
		name := r[2]
		if name != "" {
			if u, err := strconv.Unquote(name); err == nil {
				name = u
			} else {
				name = strings.Trim(name, `"`)
			}
		}
		out = append(out, element{Role: r[1], Name: name, Ref: m[1]})
	}
	return out
}

// target names the element a step acts on the way a reader of the snapshot
// would pick it: by role and accessible name.
type target struct {
	Role string
	Name string
	// Prefix: the name starts with Name (swagger-ui's operation buttons
	// carry the path, then the summary).
	Prefix bool
	// Nth: the Nth match (0 the first).
	Nth int
}

func (t target) String() string {
	s := t.Role
	if t.Name != "" {
		s += " " + strconv.Quote(t.Name)
		if t.Prefix {
			s += "…"
		}
	}
	if t.Nth > 0 {
		s += " #" + strconv.Itoa(t.Nth+1)
	}
	return s
}

func (t target) matches(e element) bool {
	if e.Role != t.Role {
		return false
	}
	if t.Prefix {
		return strings.HasPrefix(e.Name, t.Name)
	}
	return t.Name == "" || e.Name == t.Name
}

// findRef looks for t in the outputs a server has returned, newest first:
// the newest output that shows the element holds its current ref.
func findRef(outputs []string, t target) (string, bool) {
	for i := len(outputs) - 1; i >= 0; i-- {
		n := 0
		for _, e := range parseElements(outputs[i]) {
			if t.matches(e) {
				if n == t.Nth {
					return e.Ref, true
				}
				n++
			}
		}
	}
	return "", false
}
