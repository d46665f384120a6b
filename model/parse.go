package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// ExampleAction is a correct reply for the action field, for error texts and
// prompts.
func ExampleAction(field string) string {
	if field == "" {
		field = FieldBash
	}
	return fmt.Sprintf(`{"thought": "...", "%s": "...", "done": false, "final_response": ""}`, field)
}

// JSON is the action as the model would have written it (done as it said,
// even when demoted), so ParseAction(a.JSON(), ...) gives a back.
func (a Action) JSON() string {
	field := a.Field
	if field == "" {
		field = FieldBash
	}
	var b bytes.Buffer
	put := func(v any) {
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)
		b.Truncate(b.Len() - 1) // Encode's newline
	}
	b.WriteString(`{"thought": `)
	put(a.Thought)
	b.WriteString(`, `)
	put(field)
	b.WriteString(`: `)
	put(a.Code)
	b.WriteString(`, "done": `)
	put(a.Done || a.Demoted)
	b.WriteString(`, "final_response": `)
	put(a.FinalResponse)
	b.WriteString(`}`)
	return b.String()
}

// ParseAction turns a reply into one validated action. Parsing is lenient:
// the object may sit in a code fence or prose, after <think>...</think>, with
// text after it; the first complete JSON object that parses is taken.
// Validation is strict: exactly thought, the action field, done and
// final_response, with the right types, a non-empty thought, and either an
// action or done. Done with an action is demoted: the action runs. Every
// failure is a *FormatError written for the model.
func ParseAction(content, finishReason, actionField string) (Action, error) {
	if actionField == "" {
		actionField = FieldBash
	}
	truncated := finishReason == "length"
	if strings.TrimSpace(content) == "" {
		if truncated {
			return Action{}, formatErr("Your reply was cut off by the token limit before it wrote anything. Keep the thought short and reply with only the JSON object.")
		}
		return Action{}, formatErr("Your reply was empty. Reply with exactly one JSON object: %s", ExampleAction(actionField))
	}

	body, openThink := stripLeadingThinking(content)
	var hit found
	if i := strings.Index(body, "</think>"); i >= 0 {
		// Some chat templates send the opening tag themselves, so the
		// reasoning (drafts included) ends at an orphan </think>: prefer an
		// action after it.
		if after := findObject(body[i+len("</think>"):], actionField); after.action {
			hit = after
		}
	}
	if hit.obj == nil {
		hit = findObject(body, actionField)
	}
	if hit.obj == nil && body != content {
		if again := findObject(content, actionField); again.obj != nil {
			hit = again
		}
	}
	if hit.obj == nil {
		switch {
		case truncated:
			return Action{}, formatErr("Your reply was cut off by the token limit before the JSON object was complete. Keep the thought and code shorter and reply with only the JSON object.")
		case openThink && hit.parseErr == "" && !hit.unterminated:
			return Action{}, formatErr("Your reply opened <think> but never closed it, and no JSON action followed. Close your reasoning with </think> and then reply with the JSON object.")
		case hit.parseErr != "":
			return Action{}, formatErr("Your JSON object does not parse: %s. %s", hit.parseErr, parseHint(hit.parseErr))
		case hit.unterminated:
			return Action{}, formatErr("Your JSON object is never closed: a brace or a string quote is missing. Reply with one complete object: %s", ExampleAction(actionField))
		default:
			return Action{}, formatErr("Your reply has no JSON object. Reply with exactly one JSON object and nothing else: %s", ExampleAction(actionField))
		}
	}
	return validate(hit.obj, actionField)
}

func formatErr(format string, args ...any) *FormatError {
	return &FormatError{Reason: fmt.Sprintf(format, args...)}
}

func parseHint(msg string) string {
	switch {
	case strings.Contains(msg, `'\''`):
		return `JSON needs double quotes around every key and string, not single quotes.`
	case strings.Contains(msg, "control character"):
		return `Inside a JSON string, write a newline as \n and a tab as \t.`
	case strings.Contains(msg, "invalid character '}'"), strings.Contains(msg, "invalid character ']'"):
		return `Remove the trailing comma.`
	case strings.Contains(msg, "escape"):
		return `Inside a JSON string, escape a backslash as \\ and a double quote as \".`
	}
	return `Reply with one valid JSON object with double-quoted keys and strings.`
}

// stripLeadingThinking removes <think>...</think> blocks that open before
// any '{', where reasoning models put them; a tag after that belongs to the
// action itself (a grep for "<think>"). open reports a <think> that is never
// closed; everything from it on is dropped.
func stripLeadingThinking(s string) (out string, open bool) {
	const openTag, closeTag = "<think>", "</think>"
	for {
		i := strings.Index(s, openTag)
		if i < 0 {
			return s, false
		}
		if b := strings.IndexByte(s, '{'); b >= 0 && b < i {
			return s, false
		}
		j := strings.Index(s[i:], closeTag)
		if j < 0 {
			return s[:i], true
		}
		s = s[:i] + s[i+j+len(closeTag):]
	}
}

// found is the outcome of the object search.
type found struct {
	obj          map[string]json.RawMessage
	action       bool   // obj has thought or the action field
	parseErr     string // the first candidate's parse error, when none parsed
	unterminated bool   // a '{' whose object never closed
}

// Bounds on the work spent on pathological replies (`{"{"{"...`, where
// every '{' starts an object that never closes): real replies need a few
// candidates at most.
const (
	maxCandidates = 64
	maxScanBytes  = 8 << 20
)

// findObject scans for brace-balanced candidates (aware of JSON strings and
// escapes) and returns the first that parses and looks like an action (has
// thought or the action field). Failing that: the first parse error, if any
// candidate failed to parse (it was most likely the intended action, and a
// stray inner object would only mislead); else the first object that parsed.
func findObject(s, actionField string) found {
	var res found
	var firstParsed map[string]json.RawMessage
	pos, scanned := 0, 0
	for tries := 0; tries < maxCandidates && scanned < maxScanBytes; tries++ {
		k := strings.IndexByte(s[pos:], '{')
		if k < 0 {
			break
		}
		start := pos + k
		end, ok := matchBrace(s, start)
		if ok {
			scanned += end - start
		} else {
			scanned += len(s) - start
		}
		if !ok {
			res.unterminated = true
			pos = start + 1
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s[start:end]), &obj); err != nil {
			if res.parseErr == "" {
				res.parseErr = err.Error()
			}
			// Look inside a broken candidate too: prose such as
			// `{like this} {"thought": ...}` must not hide the action.
			pos = start + 1
			continue
		}
		_, hasThought := obj["thought"]
		_, hasAction := obj[actionField]
		if hasThought || hasAction {
			return found{obj: obj, action: true}
		}
		if firstParsed == nil {
			firstParsed = obj
		}
		// A parsed object is top level: do not look for actions inside it.
		pos = end
	}
	if res.parseErr != "" {
		return res
	}
	if firstParsed != nil {
		return found{obj: firstParsed}
	}
	return res
}

// matchBrace returns the index just after the '}' closing the '{' at start.
func matchBrace(s string, start int) (int, bool) {
	depth := 0
	inString, escaped := false, false
	for i := start; i < len(s); i++ {
		c := s[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		}
	}
	return 0, false
}

// strayActionField is the field a model used instead of this run's action
// field (the other mode's, typically), for a pointed hint: the one unknown
// key holding a string when the action field is missing.
func strayActionField(obj map[string]json.RawMessage, field string) string {
	if _, ok := obj[field]; ok {
		return ""
	}
	stray := ""
	for k, v := range obj {
		switch k {
		case "thought", "done", "final_response":
			continue
		}
		if v := bytes.TrimSpace(v); len(v) == 0 || v[0] != '"' || stray != "" {
			return ""
		}
		stray = k
	}
	return stray
}

// validate checks the object strictly against the action protocol.
func validate(obj map[string]json.RawMessage, field string) (Action, error) {
	want := []string{"thought", field, "done", "final_response"}
	if other := strayActionField(obj, field); other != "" {
		return Action{}, formatErr(`This run takes "%s", not "%s": put your code in "%s". Reply with: %s`, field, other, field, ExampleAction(field))
	}
	var extra, missing []string
	for k := range obj {
		if !slices.Contains(want, k) {
			extra = append(extra, fmt.Sprintf("%q", k))
		}
	}
	for _, k := range want {
		if _, ok := obj[k]; !ok {
			missing = append(missing, fmt.Sprintf("%q", k))
		}
	}
	slices.Sort(extra)
	var problems []string
	if len(extra) > 0 {
		problems = append(problems, fmt.Sprintf("Unknown field%s %s.", plural(extra), strings.Join(extra, ", ")))
	}
	if len(missing) > 0 {
		problems = append(problems, fmt.Sprintf("Missing field%s %s.", plural(missing), strings.Join(missing, ", ")))
	}
	if len(problems) > 0 {
		return Action{}, formatErr("%s Use exactly these four fields: %s", strings.Join(problems, " "), ExampleAction(field))
	}

	var a Action
	a.Field = field
	for _, f := range []struct {
		key string
		dst *string
	}{{"thought", &a.Thought}, {field, &a.Code}, {"final_response", &a.FinalResponse}} {
		if err := decodeString(obj[f.key], f.dst); err != nil {
			problems = append(problems, fmt.Sprintf(`"%s" must be a string, not %s.`, f.key, jsonKind(obj[f.key])))
		}
	}
	switch raw := string(bytes.TrimSpace(obj["done"])); raw {
	case "true":
		a.Done = true
	case "false":
	default:
		problems = append(problems, fmt.Sprintf(`"done" must be true or false (a JSON boolean), not %s.`, jsonKind(obj["done"])))
	}
	if len(problems) > 0 {
		return Action{}, formatErr("%s", strings.Join(problems, " "))
	}

	if strings.TrimSpace(a.Thought) == "" {
		return Action{}, formatErr(`"thought" is empty: say in a sentence what you are doing and why.`)
	}
	hasCode := strings.TrimSpace(a.Code) != ""
	switch {
	case a.Done && hasCode:
		a.Done, a.Demoted = false, true
	case !a.Done && !hasCode:
		return Action{}, formatErr(`"%s" is empty and "done" is false: give code to run, or set "done": true with your "final_response" when the task is finished.`, field)
	}
	return a, nil
}

func plural(s []string) string {
	if len(s) == 1 {
		return ""
	}
	return "s"
}

func decodeString(raw json.RawMessage, dst *string) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return fmt.Errorf("not a string")
	}
	return json.Unmarshal(raw, dst)
}

// jsonKind names the type of a JSON value for an error message, quoting a
// short value so the model sees what it wrote.
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "empty"
	}
	quote := func(kind string) string {
		if len(raw) <= 20 {
			return fmt.Sprintf("%s (%s)", raw, kind)
		}
		return kind
	}
	switch raw[0] {
	case '"':
		return quote("a string")
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return quote("a boolean")
	case 'n':
		return "null"
	}
	return quote("a number")
}
