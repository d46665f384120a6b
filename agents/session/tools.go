package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// params is the union of every tool's arguments; each tool reads its own
// and the schema in its Tool says which.
type params struct {
	URL        string   `json:"url"`
	Ref        string   `json:"ref"`
	Text       string   `json:"text"`
	Submit     bool     `json:"submit"`
	Key        string   `json:"key"`
	Values     []string `json:"values"`
	Checked    *bool    `json:"checked"`
	Target     string   `json:"target"`
	Files      []string `json:"files"`
	Code       string   `json:"code"`
	Mode       string   `json:"mode"`
	MaxChars   int      `json:"max_chars"`
	Offset     int      `json:"offset"`
	ToFile     bool     `json:"to_file"`
	Path       string   `json:"path"`
	FullPage   bool     `json:"full_page"`
	Action     string   `json:"action"`
	Index      *int     `json:"index"`
	Time       float64  `json:"time"`
	Gone       bool     `json:"gone"`
	Accept     *bool    `json:"accept"`
	PromptText *string  `json:"prompt_text"`
	ErrorsOnly bool     `json:"errors_only"`
	Limit      int      `json:"limit"`
	All        bool     `json:"all"`
}

// decodeArgs reads a call's arguments strictly: a misspelt argument is an
// error naming it, not a silent default.
func decodeArgs(raw json.RawMessage, a *params) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(a); err != nil {
		return fmt.Errorf("bad arguments: %w", err)
	}
	return nil
}

// tool is a Tool with what runs it.
type tool struct {
	Tool
	run func(ctx context.Context, s *Session, a params) (Result, error)
}

// Schemas are kept short: the whole tool list is part of every prompt an
// MCP client sends.
func schema(props map[string]string, required ...string) json.RawMessage {
	p := map[string]any{}
	for name, spec := range props {
		typ, desc, _ := strings.Cut(spec, ":")
		prop := map[string]any{"type": typ}
		if typ == "array" {
			prop["items"] = map[string]any{"type": "string"}
		}
		if desc != "" {
			prop["description"] = strings.TrimSpace(desc)
		}
		p[name] = prop
	}
	s := map[string]any{"type": "object", "properties": p, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	b, _ := json.Marshal(s)
	return b
}

const refDesc = "string: ref from the snapshot, e.g. e12"

var tools = []tool{
	{Tool{"navigate", "Open a URL in the current tab.", schema(map[string]string{"url": "string"}, "url")}, navigate},
	{Tool{"back", "Go back in history.", schema(nil)}, history("page.go_back()")},
	{Tool{"forward", "Go forward in history.", schema(nil)}, history("page.go_forward()")},
	{Tool{"reload", "Reload the page.", schema(nil)}, history("page.reload()")},
	{Tool{"snapshot", "ARIA snapshot of the page with [ref=eN] refs. Default: changes since the last one.",
		schema(map[string]string{
			"mode":      "string: changes (default) or full",
			"max_chars": "integer: cut the text here",
			"offset":    "integer: start at this character (to read past a cut)",
			"ref":       "string: only this element's subtree",
			"to_file":   "boolean: write the whole snapshot to a file; return its path and size",
		})}, snapshot},
	{Tool{"click", "Click an element.", schema(map[string]string{"ref": refDesc}, "ref")}, click},
	{Tool{"fill", "Replace a field's value.", schema(map[string]string{"ref": refDesc, "text": "string", "submit": "boolean: press Enter after"}, "ref", "text")}, fill},
	{Tool{"type", "Type text key by key (into ref, else the focused element).", schema(map[string]string{"ref": refDesc, "text": "string"}, "text")}, typeText},
	{Tool{"press", "Press a key or chord (Enter, Control+A).", schema(map[string]string{"key": "string", "ref": refDesc}, "key")}, press},
	{Tool{"select", "Choose options of a select by value or label.", schema(map[string]string{"ref": refDesc, "values": "array"}, "ref", "values")}, selectOption},
	{Tool{"check", "Check or uncheck a checkbox or radio.", schema(map[string]string{"ref": refDesc, "checked": "boolean: default true"}, "ref")}, check},
	{Tool{"hover", "Hover over an element.", schema(map[string]string{"ref": refDesc}, "ref")}, hover},
	{Tool{"drag", "Drag an element onto another.", schema(map[string]string{"ref": refDesc, "target": "string: ref to drop on"}, "ref", "target")}, drag},
	{Tool{"upload", "Set a file input's files.", schema(map[string]string{"ref": refDesc, "files": "array: file paths"}, "ref", "files")}, upload},
	{Tool{"run_code", "Run Python Playwright code on the live page (`page`, `browser` bound; variables kept). Returns output and console.",
		schema(map[string]string{"code": "string"}, "code")}, runCode},
	{Tool{"screenshot", "Screenshot of the viewport (or full page).", schema(map[string]string{"full_page": "boolean", "path": "string: also save here"})}, screenshot},
	{Tool{"tabs", "List, open, select or close tabs.", schema(map[string]string{"action": "string: list (default), open, select, close", "index": "integer", "url": "string: for open"})}, tabs},
	{Tool{"console", "Console messages of the session.", schema(map[string]string{"errors_only": "boolean"})}, console},
	{Tool{"network", "Requests the pages made.", schema(map[string]string{"limit": "integer: default 50", "all": "boolean: images, styles and fonts too"})}, network},
	{Tool{"wait", "Wait for text to appear (or be gone), a URL, or a time in seconds.", schema(map[string]string{"text": "string", "gone": "boolean", "url": "string: glob or exact URL", "time": "number: seconds"})}, wait},
	{Tool{"dialog", "Say how the next dialog is answered (default: accepted).", schema(map[string]string{"accept": "boolean", "prompt_text": "string"}, "accept")}, dialog},
	{Tool{"close", "End the session: the browser closes.", schema(nil)}, closeTool},
}

var toolByName = func() map[string]tool {
	m := map[string]tool{}
	for _, t := range tools {
		m[t.Name] = t
	}
	return m
}()

// Tools lists the browser tools a session offers.
func Tools() []Tool {
	out := make([]Tool, len(tools))
	for i, t := range tools {
		out[i] = t.Tool
	}
	return out
}

func toolNames() []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

// ---- actions --------------------------------------------------------------------

func navigate(ctx context.Context, s *Session, a params) (Result, error) {
	if a.URL == "" {
		return Result{}, errors.New("navigate: url is required")
	}
	code := "page.goto(" + pyStr(a.URL) + ")"
	return s.act(ctx, "navigate", code, code)
}

func history(code string) func(context.Context, *Session, params) (Result, error) {
	return func(ctx context.Context, s *Session, _ params) (Result, error) {
		return s.act(ctx, strings.TrimSuffix(strings.TrimPrefix(code, "page."), "()"), code, code)
	}
}

func click(ctx context.Context, s *Session, a params) (Result, error) {
	return s.onRef(ctx, "click", a.Ref, ".click()")
}

func fill(ctx context.Context, s *Session, a params) (Result, error) {
	call := ".fill(" + pyStr(a.Text) + ")"
	if a.Submit {
		return s.onRefTwice(ctx, "fill", a.Ref, call, `.press("Enter")`)
	}
	return s.onRef(ctx, "fill", a.Ref, call)
}

func typeText(ctx context.Context, s *Session, a params) (Result, error) {
	if a.Ref == "" {
		code := "page.keyboard.type(" + pyStr(a.Text) + ")"
		return s.act(ctx, "type", code, code)
	}
	return s.onRef(ctx, "type", a.Ref, ".press_sequentially("+pyStr(a.Text)+")")
}

func press(ctx context.Context, s *Session, a params) (Result, error) {
	if a.Key == "" {
		return Result{}, errors.New("press: key is required")
	}
	if a.Ref == "" {
		code := "page.keyboard.press(" + pyStr(a.Key) + ")"
		return s.act(ctx, "press", code, code)
	}
	return s.onRef(ctx, "press", a.Ref, ".press("+pyStr(a.Key)+")")
}

func selectOption(ctx context.Context, s *Session, a params) (Result, error) {
	if len(a.Values) == 0 {
		return Result{}, errors.New("select: values is required (one or more option values or labels)")
	}
	vals := make([]string, len(a.Values))
	for i, v := range a.Values {
		vals[i] = pyStr(v)
	}
	arg := vals[0]
	if len(vals) > 1 {
		arg = "[" + strings.Join(vals, ", ") + "]"
	}
	return s.onRef(ctx, "select", a.Ref, ".select_option("+arg+")")
}

func check(ctx context.Context, s *Session, a params) (Result, error) {
	if a.Checked != nil && !*a.Checked {
		return s.onRef(ctx, "check", a.Ref, ".uncheck()")
	}
	return s.onRef(ctx, "check", a.Ref, ".check()")
}

func hover(ctx context.Context, s *Session, a params) (Result, error) {
	return s.onRef(ctx, "hover", a.Ref, ".hover()")
}

func drag(ctx context.Context, s *Session, a params) (Result, error) {
	if a.Target == "" {
		return Result{}, errors.New("drag: target is required (the ref to drop on)")
	}
	tgtExec, tgtCode := s.locator(a.Target)
	return s.onRefWith(ctx, "drag", a.Ref, func(loc string) string { return loc + ".drag_to(" + tgtExec + ")" },
		func(loc string) string { return loc + ".drag_to(" + tgtCode + ")" })
}

func runCode(ctx context.Context, s *Session, a params) (Result, error) {
	if strings.TrimSpace(a.Code) == "" {
		return Result{}, errors.New("run_code: code is required")
	}
	return s.actConsole(ctx, "run_code", a.Code, a.Code, true)
}

func wait(ctx context.Context, s *Session, a params) (Result, error) {
	var code string
	switch {
	case a.Text != "" && a.Gone:
		code = "page.get_by_text(" + pyStr(a.Text) + ").first.wait_for(state=\"hidden\")"
	case a.Text != "":
		code = "page.get_by_text(" + pyStr(a.Text) + ").first.wait_for()"
	case a.URL != "":
		code = "page.wait_for_url(" + pyStr(a.URL) + ")"
	case a.Time > 0:
		if a.Time > 60 {
			return Result{}, errors.New("wait: time is in seconds, at most 60")
		}
		code = fmt.Sprintf("page.wait_for_timeout(%d)", int(a.Time*1000))
	default:
		return Result{}, errors.New("wait: give text, url or time")
	}
	return s.act(ctx, "wait", code, code)
}

func dialog(ctx context.Context, s *Session, a params) (Result, error) {
	answer := "dialog.dismiss()"
	if a.Accept == nil || *a.Accept {
		answer = "dialog.accept()"
		if a.PromptText != nil {
			answer = "dialog.accept(" + pyStr(*a.PromptText) + ")"
		}
	}
	code := "page.once(\"dialog\", lambda dialog: " + answer + ")"
	res, err := s.act(ctx, "dialog", code, code)
	if err == nil {
		res.Text = "The next dialog will be answered: " + answer + ".\n" + res.Text
	}
	return res, err
}

func closeTool(_ context.Context, s *Session, _ params) (Result, error) {
	// Close takes what the call holds; let the call return first.
	go s.Close()
	return Result{Text: "The session is closing: its browser and runner end now.", Data: map[string]any{"closed": true}}, nil
}

func isRef(ref string) bool {
	if len(ref) < 2 || ref[0] != 'e' {
		return false
	}
	return strings.Trim(ref[1:], "0123456789") == ""
}

// requireRef checks a ref's form before anything runs.
func requireRef(tool, ref string) error {
	if ref == "" {
		return fmt.Errorf("%s: ref is required (e.g. e12, from a snapshot)", tool)
	}
	if !isRef(ref) {
		return fmt.Errorf("%s: %q is no ref; refs look like e12 and come from a snapshot", tool, ref)
	}
	return nil
}

// onRef runs loc+call on the element ref names.
func (s *Session) onRef(ctx context.Context, tool, ref, call string) (Result, error) {
	return s.onRefWith(ctx, tool, ref, func(loc string) string { return loc + call }, func(loc string) string { return loc + call })
}

// onRefTwice runs two calls on one element (fill, then Enter).
func (s *Session) onRefTwice(ctx context.Context, tool, ref, first, second string) (Result, error) {
	two := func(loc string) string { return loc + first + "\n" + loc + second }
	return s.onRefWith(ctx, tool, ref, two, two)
}

func (s *Session) onRefWith(ctx context.Context, tool, ref string, execForm, codeForm func(loc string) string) (Result, error) {
	if err := requireRef(tool, ref); err != nil {
		return Result{}, err
	}
	execLoc, codeLoc := s.locator(ref)
	code := codeForm(codeLoc)
	if codeLoc == execLoc {
		// A fresh script has no refs: say where it needs a locator.
		code += "  # " + ref + " is a ref of this session: no role and name find it alone"
	}
	return s.act(ctx, tool, execForm(execLoc), code)
}

// locator is how ref is named in the code that runs (the ref itself: the
// very element the snapshot showed) and in the code a fresh script runs
// (get_by_role with the snapshot's role and name, when that finds exactly
// one element now).
func (s *Session) locator(ref string) (execForm, codeForm string) {
	execForm = "page.locator(" + pyStr("aria-ref="+ref) + ")"
	return execForm, s.portable(ref, execForm)
}

// ---- reads ------------------------------------------------------------------------

func console(_ context.Context, s *Session, a params) (Result, error) {
	s.drainConsole()
	var lines []string
	for _, l := range s.console {
		if !a.ErrorsOnly || isErrorLine(l) {
			lines = append(lines, l)
		}
	}
	text := strings.Join(lines, "\n")
	if text == "" {
		text = "(no console messages)"
	}
	return Result{Text: text, Data: map[string]any{"messages": nonNil(lines)}}, nil
}

// drainConsole takes the messages the pages logged since the last step
// (the next observation would otherwise show them; they are in the log).
func (s *Session) drainConsole() {
	b := s.env.Browser()
	if b == nil {
		return
	}
	cur := s.env.CurrentPage()
	for i, p := range b.Pages() {
		prefix := ""
		if cur == nil || p.ID() != cur.ID() {
			prefix = fmt.Sprintf("[tab %d] ", i)
		}
		for _, m := range p.ConsoleMessages(true) {
			s.console = append(s.console, fmt.Sprintf("%s[%s] %s", prefix, m.Type, m.Text))
		}
		for _, pe := range p.PageErrors(true) {
			s.console = append(s.console, fmt.Sprintf("%s[pageerror] %s", prefix, pe.Message))
		}
	}
}

func isErrorLine(l string) bool {
	return strings.Contains(l, "[error]") || strings.Contains(l, "[pageerror]")
}

func network(_ context.Context, s *Session, a params) (Result, error) {
	limit := a.Limit
	if limit <= 0 {
		limit = 50
	}
	lines := s.net.lines(limit, a.All)
	text := strings.Join(lines, "\n")
	if text == "" {
		text = "(no requests)"
	}
	return Result{Text: text, Data: map[string]any{"requests": nonNil(lines)}}, nil
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

func tabs(ctx context.Context, s *Session, a params) (Result, error) {
	switch a.Action {
	case "", "list":
		return s.listTabs(ctx), nil
	case "open":
		exec := "page = page.context.new_page()"
		if a.URL != "" {
			exec += "\npage.goto(" + pyStr(a.URL) + ")"
		}
		res, err := s.act(ctx, "tabs", exec, exec)
		return s.withTabs(ctx, res), err
	case "select", "close":
		if a.Index == nil {
			if a.Action == "close" {
				res, err := s.act(ctx, "tabs", "page.close()", "page.close()")
				return s.withTabs(ctx, res), err
			}
			return Result{}, errors.New("tabs: select needs index (from tabs list)")
		}
		b := s.env.Browser()
		if b == nil {
			return Result{}, errors.New("tabs: the browser is not running")
		}
		pages := b.Pages()
		i := *a.Index
		if i < 0 || i >= len(pages) {
			return Result{}, fmt.Errorf("tabs: no tab %d; there are %d (0 to %d)", i, len(pages), len(pages)-1)
		}
		// The runner finds the tab by the engine's id; the script by its
		// place among the context's pages.
		find := "next(p for p in browser.pages if p.id == " + pyStr(pages[i].ID()) + ")"
		var exec, code string
		if a.Action == "select" {
			exec = "page = " + find + "\npage.bring_to_front()"
			code = fmt.Sprintf("page = page.context.pages[%d]\npage.bring_to_front()", i)
		} else {
			exec = find + ".close()"
			code = fmt.Sprintf("page.context.pages[%d].close()", i)
		}
		res, err := s.act(ctx, "tabs", exec, code)
		return s.withTabs(ctx, res), err
	}
	return Result{}, fmt.Errorf("tabs: action %q: want list, open, select or close", a.Action)
}

// withTabs puts the tab list under an action's result.
func (s *Session) withTabs(ctx context.Context, r Result) Result {
	l := s.listTabs(ctx)
	r.Text = strings.TrimRight(r.Text, "\n") + "\n" + l.Text
	if r.Data == nil {
		r.Data = map[string]any{}
	}
	r.Data["tabs"] = l.Data["tabs"]
	return r
}

func (s *Session) listTabs(ctx context.Context) Result {
	b := s.env.Browser()
	if b == nil {
		return Result{Text: "(no browser)", Data: map[string]any{"tabs": []any{}}}
	}
	cur := s.env.CurrentPage()
	var lines []string
	var list []map[string]any
	for i, p := range b.Pages() {
		tctx, cancel := context.WithTimeout(ctx, 2*1e9)
		title, _ := p.Title(tctx)
		cancel()
		mark := " "
		current := cur != nil && p.ID() == cur.ID()
		if current {
			mark = "*"
		}
		lines = append(lines, fmt.Sprintf("%s %d: %s — %s", mark, i, title, p.URL()))
		list = append(list, map[string]any{"index": i, "url": p.URL(), "title": title, "current": current})
	}
	return Result{Text: "Tabs (* current):\n" + strings.Join(lines, "\n"), Data: map[string]any{"tabs": list}}
}
