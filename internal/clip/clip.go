// Package clip shortens text for a reader with little room (a model's
// context, a refusal): it keeps the head and the tail, which say what a
// text set out to do and how it ended, and says how much was left out.
package clip

import "fmt"

// Middle keeps the first head and the last tail runes of s and puts
// note(omitted) between them, omitted being the number of runes left out.
// s comes back whole when it has no more than head+tail runes.
func Middle(s string, head, tail int, note func(omitted int) string) string {
	head, tail = max(head, 0), max(tail, 0)
	if len(s) <= head+tail { // bytes >= runes: short enough either way
		return s
	}
	r := []rune(s)
	if len(r) <= head+tail {
		return s
	}
	return string(r[:head]) + note(len(r)-head-tail) + string(r[len(r)-tail:])
}

// Omitted is the note of most shortened texts: a line saying how many
// characters were left out.
func Omitted(omitted int) string {
	return fmt.Sprintf("\n... [%d characters omitted] ...\n", omitted)
}

// Thirds keeps the first third and the last two thirds of limit runes of s,
// with the Omitted note between: for logs and judgments, whose end says
// more than their start.
func Thirds(s string, limit int) string {
	return Middle(s, limit/3, limit-limit/3, Omitted)
}
