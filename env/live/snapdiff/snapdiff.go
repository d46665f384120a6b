// Package snapdiff turns two ARIA snapshots of the same page into the
// changes between them, written for a model that saw the first one: the
// lines added, removed and changed, each hunk placed under its ancestor
// lines (and the sibling just before it), with the refs the lines carry.
// Live mode sends this instead of the whole snapshot when a step changed
// little, so most of a long run's prompt stays the same from call to call.
//
// A snapshot is Playwright's ARIA YAML: one node per line, nesting by
// indentation, `[ref=eN]` on the lines that can be acted on. The diff is
// by lines; a ref names the same element in both snapshots (the registry
// hands the same element the same ref), which is what pairs an old line
// with its new form as a change rather than a removal and an addition.
package snapdiff

import (
	"fmt"
	"strings"
)

// maxCells bounds the line-diff table (lines of the old middle times lines
// of the new): beyond it the two snapshots are too far apart for a diff
// to help, and Diff says so instead of spending the memory.
const maxCells = 4 << 20

// contextRunes is how much of a context line is shown: it only places a
// hunk, and a page's long text (a code sample, a paragraph) would
// otherwise cost more than the change it places.
const contextRunes = 100

// Line marks of a change text: every line starts with one of them.
const (
	MarkAdded   = "+ "
	MarkRemoved = "- "
	MarkChanged = "~ "
	MarkContext = "  "
)

// Result is the change text between two snapshots and what it holds.
type Result struct {
	// Text is the hunks, one line per line of the snapshots, each line
	// prefixed by a mark; "" when nothing changed.
	Text string
	// Added, Removed and Changed count the lines of each kind.
	Added, Removed, Changed int
	// TooFar is set when the snapshots differ too much to diff (Text is
	// then empty): send the whole snapshot.
	TooFar bool
}

// Same reports that the snapshots are equal.
func (r Result) Same() bool { return !r.TooFar && r.Added+r.Removed+r.Changed == 0 }

// Summary is the one-line count of a result, e.g. "2 added, 1 changed".
func (r Result) Summary() string {
	var parts []string
	for _, p := range []struct {
		n    int
		word string
	}{{r.Added, "added"}, {r.Removed, "removed"}, {r.Changed, "changed"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.word))
		}
	}
	if len(parts) == 0 {
		return "no change"
	}
	return strings.Join(parts, ", ")
}

type line struct {
	text   string
	id     int // the same id for the same text, in both snapshots: compared instead of the text
	indent int
	ref    string // "" for a line without one
	role   string // the first word after "- ", for pairing lines without refs
}

// refOf is the eN of the line's [ref=eN], or "".
func refOf(t string) string {
	i := strings.Index(t, "[ref=e")
	if i < 0 {
		return ""
	}
	rest := t[i+len("[ref="):]
	j := 1
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	if j == 1 || j >= len(rest) || rest[j] != ']' {
		return ""
	}
	return rest[:j]
}

func parse(snapshot string, ids map[string]int) []line {
	if snapshot == "" {
		return nil
	}
	raw := strings.Split(strings.TrimRight(snapshot, "\n"), "\n")
	out := make([]line, len(raw))
	for i, t := range raw {
		id, ok := ids[t]
		if !ok {
			id = len(ids)
			ids[t] = id
		}
		l := line{text: t, id: id, indent: len(t) - len(strings.TrimLeft(t, " ")), ref: refOf(t)}
		body := strings.TrimPrefix(strings.TrimLeft(t, " "), "- ")
		if k := strings.IndexAny(body, " :["); k >= 0 {
			body = body[:k]
		}
		l.role = body
		out[i] = l
	}
	return out
}

// Diff returns the changes that turn prev into cur.
func Diff(prev, cur string) Result {
	ids := map[string]int{}
	a, b := parse(prev, ids), parse(cur, ids)
	ops, ok := editScript(a, b)
	if !ok {
		return Result{TooFar: true}
	}
	return render(a, b, ops)
}

type opKind uint8

const (
	opEqual opKind = iota
	opDelete
	opInsert
)

// op is one step of the edit script: i indexes a (equal, delete), j
// indexes b (equal, insert).
type op struct {
	kind opKind
	i, j int
}

// editScript is a shortest line edit script from a to b: the common head
// and tail are taken off first (a step usually changes one place), the
// middle is a longest-common-subsequence table. ok is false when the
// middle is too big to tabulate.
func editScript(a, b []line) ([]op, bool) {
	head := 0
	for head < len(a) && head < len(b) && a[head].id == b[head].id {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail].id == b[len(b)-1-tail].id {
		tail++
	}
	n, m := len(a)-head-tail, len(b)-head-tail
	if n > 0 && m > 0 && n*m > maxCells {
		return nil, false
	}
	ops := make([]op, 0, len(a)+len(b))
	for k := 0; k < head; k++ {
		ops = append(ops, op{opEqual, k, k})
	}
	// lcs[i][j] is the LCS length of a[head+i:] and b[head+j:] (middles only).
	w := m + 1
	lcs := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[head+i].id == b[head+j].id {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[head+i].id == b[head+j].id:
			ops = append(ops, op{opEqual, head + i, head + j})
			i++
			j++
		case i < n && (j == m || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
			// Deletions before insertions within a hunk, so a removed
			// line is printed before what took its place.
			ops = append(ops, op{opDelete, head + i, head + j})
			i++
		default:
			ops = append(ops, op{opInsert, head + i, head + j})
			j++
		}
	}
	for k := 0; k < tail; k++ {
		ops = append(ops, op{opEqual, len(a) - tail + k, len(b) - tail + k})
	}
	return ops, true
}

// hunk is a run of deletions and insertions between equal lines.
type hunk struct {
	dels []int // indexes into a
	ins  []int // indexes into b
	at   int   // index into b where the hunk sits (the first line after the equal ones before it)
}

func hunks(ops []op) []hunk {
	var hs []hunk
	var cur *hunk
	for _, o := range ops {
		if o.kind == opEqual {
			cur = nil
			continue
		}
		if cur == nil {
			hs = append(hs, hunk{at: o.j})
			cur = &hs[len(hs)-1]
		}
		if o.kind == opDelete {
			cur.dels = append(cur.dels, o.i)
		} else {
			cur.ins = append(cur.ins, o.j)
		}
	}
	return hs
}

// pair matches each inserted line to a deleted line of the same element
// (the same ref, or, for lines without refs, the same indent and role), in
// order; the pairs are changes, the rest additions and removals.
func pair(a, b []line, h hunk) map[int]int {
	pairs := map[int]int{} // b index -> a index
	used := make([]bool, len(h.dels))
	next := 0 // deleted lines are paired in order, so the pairs do not cross
	for _, j := range h.ins {
		for k := next; k < len(h.dels); k++ {
			d := a[h.dels[k]]
			same := d.ref != "" && d.ref == b[j].ref ||
				d.ref == "" && b[j].ref == "" && d.indent == b[j].indent && d.role == b[j].role
			if !used[k] && same {
				used[k] = true
				pairs[j] = h.dels[k]
				next = k + 1
				break
			}
		}
	}
	return pairs
}

func render(a, b []line, ops []op) Result {
	var r Result
	var sb strings.Builder
	shown := map[int]bool{} // lines of b already printed as context or change
	emit := func(mark string, l line) {
		sb.WriteString(mark)
		sb.WriteString(l.text)
		sb.WriteByte('\n')
	}
	for _, h := range hunks(ops) {
		pairs := pair(a, b, h)
		paired := map[int]bool{}
		for _, i := range pairs {
			paired[i] = true
		}
		// Place the hunk: its first line's ancestors in the new snapshot
		// (a removal's in the old one when nothing was inserted), then the
		// sibling just before it.
		indent := 0
		switch {
		case len(h.ins) > 0:
			indent = b[h.ins[0]].indent
		case len(h.dels) > 0:
			indent = a[h.dels[0]].indent
		}
		for _, j := range context(b, h.at, indent) {
			if !shown[j] {
				shown[j] = true
				l := b[j]
				if r := []rune(l.text); len(r) > contextRunes {
					l.text = strings.TrimRight(string(r[:contextRunes]), " ") + " …"
				}
				emit(MarkContext, l)
			}
		}
		for _, i := range h.dels {
			if !paired[i] {
				emit(MarkRemoved, a[i])
				r.Removed++
			}
		}
		for _, j := range h.ins {
			shown[j] = true
			if _, ok := pairs[j]; ok {
				emit(MarkChanged, b[j])
				r.Changed++
			} else {
				emit(MarkAdded, b[j])
				r.Added++
			}
		}
	}
	r.Text = strings.TrimSuffix(sb.String(), "\n")
	return r
}

// context lists, in order, the lines of b that place a hunk starting at
// b[at] with the given indent: its ancestors (each line above with less
// indent than the last), and the nearest sibling before it.
func context(b []line, at, indent int) []int {
	var up []int
	sibling := -1
	want := indent
	for j := min(at, len(b)) - 1; j >= 0; j-- {
		l := b[j]
		if l.indent == indent && sibling < 0 && want == indent {
			sibling = j
		}
		if l.indent < want {
			up = append(up, j)
			want = l.indent
			if want == 0 {
				break
			}
		}
	}
	out := make([]int, 0, len(up)+1)
	for k := len(up) - 1; k >= 0; k-- {
		out = append(out, up[k])
	}
	if sibling >= 0 {
		out = append(out, sibling)
	}
	return out
}
