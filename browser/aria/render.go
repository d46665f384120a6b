package aria

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"wright/browser/aria/roles"
)

// maxNameRunes keeps a key under YAML's 1024-character limit for keys,
// with room for the role and the attributes.
const maxNameRunes = 900

// interactiveOnly prunes a tree to the elements that can be acted on,
// keeping the containers that place them and dropping everything else.
func interactiveOnly(root *node) *node {
	out := *root
	out.kids = pruneKids(root.kids)
	return &out
}

func pruneKids(kids []item) []item {
	var out []item
	for _, k := range kids {
		if k.n == nil {
			continue
		}
		out = append(out, pruneNode(k.n)...)
	}
	return out
}

func pruneNode(n *node) []item {
	kept := pruneKids(n.kids)
	switch {
	case n.actionable || n.role == "option":
		c := *n
		// A control keeps its own text (a textbox's value, a clickable
		// card's caption); one without a name or text of its own gets its
		// content's text, which is all that says what it is.
		var own []item
		for _, k := range n.kids {
			if k.n == nil {
				own = append(own, k)
			}
		}
		if len(own) == 0 && n.name == "" && n.role != "iframe" {
			if t := contentText(n); t != "" {
				own = []item{{text: t}}
			}
		}
		c.kids = append(own, kept...)
		return []item{{n: &c}}
	case len(kept) == 0:
		return nil
	case n.name != "" || roles.Has(n.role, roles.Context):
		c := *n
		c.kids = kept
		return []item{{n: &c}}
	default:
		return kept
	}
}

// line is one line of output; ref is the node whose ref the line shows.
type line struct {
	text string
	ref  *node
}

// renderer turns nodes into lines, asking refs of the registry.
type renderer struct {
	maxDepth int
	lines    []line
	refFor   func(*node) string // nil: no refs
}

func (r *renderer) render(root *node) {
	for _, k := range root.kids {
		if k.n == nil {
			r.text(k.text, 0)
		} else {
			r.node(k.n, 0)
		}
	}
}

func indent(depth int) string { return strings.Repeat("  ", depth) }

func (r *renderer) text(t string, depth int) {
	r.lines = append(r.lines, line{text: indent(depth) + "- text: " + yamlValue(t)})
}

func (r *renderer) node(n *node, depth int) {
	var key strings.Builder
	key.WriteString(n.role)
	if n.name != "" {
		name := n.name
		if utf8.RuneCountInString(name) > maxNameRunes {
			name = string([]rune(name)[:maxNameRunes]) + "…"
		}
		key.WriteString(" ")
		key.WriteString(jsonString(name))
	}
	switch n.checked {
	case "true":
		key.WriteString(" [checked]")
	case "mixed":
		key.WriteString(" [checked=mixed]")
	}
	if n.disabled {
		key.WriteString(" [disabled]")
	}
	if n.expanded {
		key.WriteString(" [expanded]")
	}
	switch n.invalid {
	case "":
	case "true":
		key.WriteString(" [invalid]")
	default:
		key.WriteString(" [invalid=" + n.invalid + "]")
	}
	if n.level > 0 {
		fmt.Fprintf(&key, " [level=%d]", n.level)
	}
	switch n.pressed {
	case "true":
		key.WriteString(" [pressed]")
	case "mixed":
		key.WriteString(" [pressed=mixed]")
	}
	if n.selected {
		key.WriteString(" [selected]")
	}
	var refNode *node
	if n.actionable && r.refFor != nil {
		key.WriteString(" [ref=" + r.refFor(n) + "]")
		refNode = n
	}

	prefix := indent(depth) + "- " + yamlKey(key.String())
	atLimit := r.maxDepth > 0 && depth+1 >= r.maxDepth
	switch {
	case len(n.kids) == 1 && n.kids[0].n == nil && len(n.props) == 0 && !n.truncated:
		r.lines = append(r.lines, line{text: prefix + ": " + yamlValue(n.kids[0].text), ref: refNode})
	case atLimit || (len(n.kids) == 0 && len(n.props) == 0 && !n.truncated):
		r.lines = append(r.lines, line{text: prefix, ref: refNode})
	default:
		r.lines = append(r.lines, line{text: prefix + ":", ref: refNode})
		for _, p := range n.props {
			r.lines = append(r.lines, line{text: indent(depth+1) + "- /" + p.name + ": " + yamlValue(p.value)})
		}
		for _, k := range n.kids {
			if k.n == nil {
				r.text(k.text, depth+1)
			} else {
				r.node(k.n, depth+1)
			}
		}
	}
}

// cut keeps the longest prefix of lines that fits maxChars together with
// the marker saying how many lines were left out. Lines are never split.
// It returns the number of lines kept and the marker ("" if all fit).
func cut(lines []line, maxChars int) (int, string) {
	if maxChars <= 0 {
		return len(lines), ""
	}
	total := 0
	for i, l := range lines {
		if i > 0 {
			total++
		}
		total += utf8.RuneCountInString(l.text)
	}
	if total <= maxChars {
		return len(lines), ""
	}
	best, used := 0, 0
	for k := 0; k <= len(lines); k++ {
		marker := fmt.Sprintf("[... %d more nodes]", len(lines)-k)
		size := used + utf8.RuneCountInString(marker)
		if k > 0 {
			size++ // the newline before the marker
		}
		if size <= maxChars {
			best = k
		}
		if k == len(lines) {
			break
		}
		if k > 0 {
			used++
		}
		used += utf8.RuneCountInString(lines[k].text)
		if used > maxChars {
			break
		}
	}
	return best, fmt.Sprintf("[... %d more nodes]", len(lines)-best)
}

// cutMore is cut for a tree whose last more lines were left out before
// rendering: the marker counts them too, and is there whenever more > 0.
func cutMore(lines []line, maxChars, more int) (int, string) {
	if more <= 0 || maxChars <= 0 {
		return cut(lines, maxChars)
	}
	best, used := 0, 0
	for k := 0; k <= len(lines); k++ {
		size := used + utf8.RuneCountInString(marker(len(lines)-k+more))
		if k > 0 {
			size++
		}
		if size <= maxChars {
			best = k
		}
		if k == len(lines) {
			break
		}
		if k > 0 {
			used++
		}
		used += utf8.RuneCountInString(lines[k].text)
		if used > maxChars {
			break
		}
	}
	return best, marker(len(lines) - best + more)
}

func marker(n int) string { return fmt.Sprintf("[... %d more nodes]", n) }
