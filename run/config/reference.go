package config

import (
	"bytes"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Reference is docs/config.md: every key wright reads, with its default
// and what it is for, taken from the built-in YAML (values and their line
// comments) and the key table (the Config struct). It is generated, so the
// page cannot fall behind a key added to either.
func Reference() (string, error) {
	base, err := builtins.ReadFile("builtin/base.yaml")
	if err != nil {
		return "", err
	}
	rows, err := yamlRows(base)
	if err != nil {
		return "", fmt.Errorf("base.yaml: %w", err)
	}
	known, free := map[string]bool{}, append([]string{}, freeMaps...)
	knownKeys(reflect.TypeOf(Config{}), "", known, &free)
	inBase := map[string]bool{}
	for _, r := range rows {
		inBase[r.key] = true
	}
	var b strings.Builder
	b.WriteString(`# Configuration reference

<!-- Generated from run/config/builtin/*.yaml and the key table by ` + "`make docs`" + `; edit those, not this page. -->

A run's configuration is layers of YAML, merged in order: the built-in
` + "`base`" + ` (below), then each ` + "`-c`" + ` layer (a built-in name, a YAML file, or
` + "`key.path=value`" + `), then ` + "`WRIGHT_*`" + ` environment variables, then the flags of the
command. Later wins. A key no part of wright reads is refused, with the
nearest known key. ` + "`run`" + `'s ` + "`--mode browser`" + ` adds the ` + "`local_browser`" + ` layer.

The environment variable of a key is ` + "`WRIGHT_`" + ` and the key in capitals with
` + "`_`" + ` for each dot: ` + "`agent.step_limit`" + ` is ` + "`WRIGHT_AGENT_STEP_LIMIT`" + `.

`)
	section := ""
	for _, r := range rows {
		top, _, _ := strings.Cut(r.key, ".")
		if top != section {
			section = top
			fmt.Fprintf(&b, "\n## %s\n\n| key | default | what it is |\n|---|---|---|\n", top)
		}
		what := r.comment
		if what == "" {
			what = described[r.key]
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.key, mdCode(r.value), mdText(orDash(what)))
	}
	var extra []string
	for k := range known {
		if !inBase[k] && !underAny(k, rows) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		b.WriteString("\n## Keys without a line in base.yaml\n\nRead by wright, with the zero value (or the code's own default) when unset; set them in a layer or with `-c key=value`.\n\n| key | what it is |\n|---|---|\n")
		for _, k := range extra {
			fmt.Fprintf(&b, "| `%s` | %s |\n", k, mdText(orDash(described[k])))
		}
	}
	b.WriteString("\n## Built-in layers\n\nGive them by name to `-c`; they change only the keys listed.\n")
	for _, name := range Builtins() {
		if name == "base" {
			continue
		}
		raw, err := builtins.ReadFile("builtin/" + name + ".yaml")
		if err != nil {
			return "", err
		}
		lrows, err := yamlRows(raw)
		if err != nil {
			return "", fmt.Errorf("%s.yaml: %w", name, err)
		}
		fmt.Fprintf(&b, "\n### %s\n\n%s\n\n| key | value |\n|---|---|\n", name, mdText(headComment(raw)))
		for _, r := range lrows {
			fmt.Fprintf(&b, "| `%s` | %s |\n", r.key, mdCode(r.value))
		}
	}
	return b.String(), nil
}

// described says what a key is for when base.yaml's line carries no
// comment (the file stays short; the page says it all).
var described = map[string]string{
	"agent.system_template":               "the system prompt (pongo2 template): builtin:NAME or a file",
	"agent.instance_template":             "the first user message, with the task",
	"agent.observation_template":          "how an observation is shown to the model",
	"agent.format_error_template":         "the answer to an unusable reply",
	"agent.gate_refusal_template":         "the answer to a refused done",
	"agent.summary_user_prompt":           "the request for a summary when the history is compacted",
	"model.name":                          "the model sent to the endpoint, or replay:FILE.jsonl for recorded replies",
	"model.max_tokens":                    "the reply's token limit; 0 = the endpoint's default",
	"model.timeout_seconds":               "one request's limit (one attempt; retries have their own)",
	"model.retry":                         "429, 5xx, timeouts and dropped connections: attempts and capped exponential backoff (a refused connection before the endpoint ever answered fails at once)",
	"model.attach_observation_screenshot": "live mode: send the step's screenshot to the model with the observation",
	"model.temperature":                   "sampling temperature; unset = the endpoint's default",
	"env.command_timeout_seconds":         "workspace mode: one bash_command; then the process group is interrupted, then killed",
	"env.output_truncation_chars":         "an observation's output budget (head and tail; the whole output stays in logs/)",
	"browser.cdp_url":                     "attach to a running browser's DevTools endpoint instead of starting Chromium",
	"browser.headless":                    "false shows the window (needs a display)",
	"browser.viewport":                    "the page size in CSS pixels (local_browser: 1280x800, a screen for each step's screenshot)",
	"browser.timeout_ms":                  "the default timeout of a browser action",
	"browser.allowed_domains":             "when set, the only hosts a page may reach (and their subdomains)",
	"browser.blocked_domains":             "hosts a page may never reach",
	"gate.rerun_timeout_seconds":          "gate.mode rerun: the limit of the harness's own run of final_script.py",
	"gate.trace":                          "gate.mode rerun: each final run records a Playwright trace, final_runs/run_<N>/trace.zip, that wright review links",
	"gate.video":                          "gate.mode rerun: record a video (WebM, needs ffmpeg) of every page of each final run into final_runs/run_<N>/video/, shown by wright review",
	"secrets":                             "values the model uses only as <secret>name</secret>: {env: VAR} or {file: PATH}, with domains (and totp: true)",
}

type yamlRow struct{ key, value, comment string }

// yamlRows flattens a YAML file into its leaves in file order. A flow
// mapping ({a: 1, b: 2}) is one row with its comment, as the file writes
// it; an empty mapping or list is a leaf too.
func yamlRows(src []byte) ([]yamlRow, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	var rows []yamlRow
	var walk func(n *yaml.Node, prefix string)
	walk = func(n *yaml.Node, prefix string) {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			key := prefix + k.Value
			if v.Kind == yaml.MappingNode && v.Style&yaml.FlowStyle == 0 && len(v.Content) > 0 {
				walk(v, key+".")
				continue
			}
			comment := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v.LineComment+" "+k.LineComment), "#"))
			rows = append(rows, yamlRow{key: key, value: inline(v), comment: comment})
		}
	}
	walk(doc.Content[0], "")
	return rows, nil
}

// inline is a node as one line of YAML.
func inline(n *yaml.Node) string {
	c := *n
	c.LineComment, c.HeadComment, c.FootComment = "", "", ""
	if c.Kind == yaml.MappingNode || c.Kind == yaml.SequenceNode {
		c.Style = yaml.FlowStyle
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&c); err != nil {
		return n.Value
	}
	return strings.TrimSpace(buf.String())
}

// headComment is a file's opening comment lines, joined.
func headComment(src []byte) string {
	var parts []string
	for _, line := range strings.Split(string(src), "\n") {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "#") {
			break
		}
		parts = append(parts, strings.TrimSpace(strings.TrimPrefix(t, "#")))
	}
	return strings.Join(parts, " ")
}

func underAny(key string, rows []yamlRow) bool {
	for _, r := range rows {
		if strings.HasPrefix(key, r.key+".") {
			return true
		}
	}
	return false
}

func mdCode(s string) string {
	if s == "" {
		return `""`
	}
	return "`" + strings.ReplaceAll(s, "|", "\\|") + "`"
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func mdText(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
