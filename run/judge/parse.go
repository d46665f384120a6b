package judge

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// Judges decorate their answers: "**Score:** 4/5", "### Status: `success`",
// "- Reasoning: ...". The parsers below strip that decoration from the start
// of a line and around a value before they look.

// lineLabel matches "<label>:" at the start of a line once markdown list
// marks, headings, emphasis and quotes are stripped. Group 1 is the label,
// group 2 the rest of the line.
var lineLabel = regexp.MustCompile(`(?i)^[\s>#*_\-+"'` + "`" + `]*(score|reasoning|status)[\s*_"'` + "`" + `]*:[\s*_]*(.*)$`)

var scoreValue = regexp.MustCompile(`^[\s*_"'` + "`" + `(\[]*([0-9]+(?:\.[0-9]+)?)`)

// ParseScore reads a stage-1 answer: "Score: N" (1 to 5) and "Reasoning:
// ...". The reasoning runs from its label to the end of the answer (or to a
// later Score line); when the label is missing, the answer without its
// Score line is the reasoning. The first Score line counts.
func ParseScore(answer string) (score int, reasoning string, err error) {
	lines := strings.Split(strings.ReplaceAll(answer, "\r\n", "\n"), "\n")
	scoreLine, reasonLine := -1, -1
	for i, line := range lines {
		m := lineLabel.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		switch strings.ToLower(m[1]) {
		case "score":
			if scoreLine >= 0 {
				continue
			}
			v := scoreValue.FindStringSubmatch(m[2])
			if v == nil {
				return 0, "", errors.New("the Score line holds no number: " + strings.TrimSpace(line))
			}
			f, perr := strconv.ParseFloat(v[1], 64)
			if perr != nil || f != float64(int(f)) || f < 1 || f > 5 {
				return 0, "", errors.New("the score must be a whole number from 1 to 5, got " + v[1])
			}
			score, scoreLine = int(f), i
		case "reasoning":
			if reasonLine < 0 {
				reasonLine = i
			}
		}
	}
	if scoreLine < 0 {
		return 0, "", errors.New("no line of the form \"Score: N\" (N from 1 to 5)")
	}
	if reasonLine >= 0 {
		first := lineLabel.FindStringSubmatch(lines[reasonLine])[2]
		var rest []string
		for _, l := range lines[reasonLine+1:] {
			if m := lineLabel.FindStringSubmatch(l); m != nil && strings.EqualFold(m[1], "score") {
				break
			}
			rest = append(rest, l)
		}
		reasoning = strings.TrimSpace(strings.TrimRight(first, "*_ ") + "\n" + strings.Join(rest, "\n"))
	} else {
		others := append(append([]string{}, lines[:scoreLine]...), lines[scoreLine+1:]...)
		reasoning = strings.TrimSpace(strings.Join(others, "\n"))
	}
	if reasoning == "" {
		return 0, "", errors.New("no reasoning: add a line \"Reasoning: ...\" explaining the score")
	}
	return score, reasoning, nil
}

// ParseStatus reads the verdict of a stage-2 answer from its last Status
// line: 1 for success, 0 for failure, nil when there is no Status line or
// its value is neither.
func ParseStatus(answer string) *int {
	lines := strings.Split(strings.ReplaceAll(answer, "\r\n", "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		m := lineLabel.FindStringSubmatch(lines[i])
		if m == nil || !strings.EqualFold(m[1], "status") {
			continue
		}
		word := strings.ToLower(strings.Trim(m[2], " \t*_\"'`.!()[]{}<>"))
		if f := strings.Fields(word); len(f) > 0 {
			word = strings.Trim(f[0], "*_\"'`.,;!()[]")
		}
		switch word {
		case "success", "successful", "succeeded", "pass", "passed":
			one := 1
			return &one
		case "failure", "fail", "failed", "unsuccessful":
			zero := 0
			return &zero
		}
		return nil
	}
	return nil
}
