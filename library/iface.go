package library

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"wright/internal/spelling"
)

//go:embed iface.py
var ifaceProgram string

// Param is one input of a saved script: an argparse option (matched with
// run()'s parameter of the same name for its type when argparse leaves it
// out).
type Param struct {
	// Name is the option's dest, the name --param uses.
	Name string `json:"name"`
	// Flag is the option string (--item); empty for a positional.
	Flag string `json:"flag,omitempty"`
	// Type is str, int, float or bool: argparse's type=, else the type of
	// the default, else run()'s annotation, else str.
	Type     string `json:"type"`
	Default  any    `json:"default"`
	Required bool   `json:"required"`
	Help     string `json:"help,omitempty"`
	// Action is argparse's store_true or store_false for a flag without a
	// value.
	Action  string `json:"action,omitempty"`
	Choices []any  `json:"choices,omitempty"`
}

// Interface is what a script takes and returns.
type Interface struct {
	// Argparse: the script has a command line (a crafted tool).
	Argparse bool `json:"argparse"`
	// Run: the script has a top-level run().
	Run    bool    `json:"run"`
	Params []Param `json:"params"`
	// Output is the shape of what it returns (JSON type and, for an
	// object, its keys), from its verified run's result.json; nil when it
	// writes none.
	Output *Shape `json:"output,omitempty"`
}

// Shape is a JSON value's outline: its type and, for objects, the keys
// and their shapes; for arrays, the shape of the first item.
type Shape struct {
	Type  string            `json:"type"`
	Keys  map[string]*Shape `json:"keys,omitempty"`
	Items *Shape            `json:"items,omitempty"`
}

// ShapeOf outlines v.
func ShapeOf(v any) *Shape {
	switch x := v.(type) {
	case nil:
		return &Shape{Type: "null"}
	case bool:
		return &Shape{Type: "boolean"}
	case float64, json.Number, int, int64:
		return &Shape{Type: "number"}
	case string:
		return &Shape{Type: "string"}
	case []any:
		s := &Shape{Type: "array"}
		if len(x) > 0 {
			s.Items = ShapeOf(x[0])
		}
		return s
	case map[string]any:
		s := &Shape{Type: "object", Keys: map[string]*Shape{}}
		for k, e := range x {
			s.Keys[k] = ShapeOf(e)
		}
		return s
	}
	return &Shape{Type: fmt.Sprintf("%T", v)}
}

// differences lists how b's shape differs from a's, at path.
func (a *Shape) differences(b *Shape, path string) []string {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil || b == nil:
		return []string{path + ": present in one version only"}
	case a.Type != b.Type:
		// null stands for "unknown" where a value is optional.
		if a.Type == "null" || b.Type == "null" {
			return nil
		}
		return []string{fmt.Sprintf("%s: %s became %s", path, a.Type, b.Type)}
	}
	var out []string
	for _, k := range sortedKeys(a.Keys, b.Keys) {
		ka, kb := a.Keys[k], b.Keys[k]
		switch {
		case kb == nil:
			out = append(out, fmt.Sprintf("%s.%s: removed", path, k))
		case ka == nil:
			out = append(out, fmt.Sprintf("%s.%s: added", path, k))
		default:
			out = append(out, ka.differences(kb, path+"."+k)...)
		}
	}
	if a.Items != nil && b.Items != nil {
		out = append(out, a.Items.differences(b.Items, path+"[]")...)
	}
	return out
}

func sortedKeys(a, b map[string]*Shape) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// ReadInterface reads a script's interface with Python's ast (the script
// is parsed, never run). python is the interpreter ("" = python3).
func ReadInterface(ctx context.Context, python string, script []byte) (Interface, error) {
	if python == "" {
		python = "python3"
	}
	f, err := os.CreateTemp("", "wright-iface-*.py")
	if err != nil {
		return Interface{}, fmt.Errorf("read the interface: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(script); err != nil {
		f.Close()
		return Interface{}, fmt.Errorf("read the interface: %w", err)
	}
	f.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-c", ifaceProgram, f.Name())
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return Interface{}, fmt.Errorf("read the interface (the script does not parse?): %w: %s", err, lastLine(errOut.String()))
	}
	var iface Interface
	if err := json.Unmarshal(out.Bytes(), &iface); err != nil {
		return Interface{}, fmt.Errorf("read the interface: %w", err)
	}
	return iface, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// Changes lists how next's interface differs from prev's: parameters
// added, removed or retyped, defaults that became required, and the
// output's shape. Help texts and default values may change freely.
func Changes(prev, next Interface) []string {
	var out []string
	pm, nm := map[string]Param{}, map[string]Param{}
	for _, p := range prev.Params {
		pm[p.Name] = p
	}
	for _, p := range next.Params {
		nm[p.Name] = p
	}
	for _, p := range prev.Params {
		q, ok := nm[p.Name]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("parameter %s removed", p.Name))
		case q.Type != p.Type:
			out = append(out, fmt.Sprintf("parameter %s: type %s became %s", p.Name, p.Type, q.Type))
		case q.Required && !p.Required:
			out = append(out, fmt.Sprintf("parameter %s became required", p.Name))
		case q.Flag != p.Flag:
			out = append(out, fmt.Sprintf("parameter %s: option %s became %s", p.Name, p.Flag, q.Flag))
		}
	}
	for _, q := range next.Params {
		if _, ok := pm[q.Name]; !ok {
			out = append(out, fmt.Sprintf("parameter %s added", q.Name))
		}
	}
	if prev.Output != nil && next.Output != nil {
		out = append(out, prev.Output.differences(next.Output, "output")...)
	}
	return out
}

// UsageError is an input that does not fit a script's interface: exit 2,
// nothing run.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) error { return &UsageError{Msg: fmt.Sprintf(format, args...)} }

// Inputs checks the given inputs (name=value, as --param takes them)
// against the interface and returns the script's arguments and every
// parameter's value (defaults filled in). An unknown name, a missing
// required one or a value of the wrong type is a *UsageError.
func (iface Interface) Inputs(given []string) (args []string, values map[string]any, err error) {
	byName := map[string]Param{}
	var names []string
	for _, p := range iface.Params {
		byName[p.Name] = p
		names = append(names, p.Name)
	}
	set := map[string]string{}
	for _, kv := range given {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, nil, usagef("--param %q: write name=value", kv)
		}
		k = strings.ReplaceAll(strings.TrimLeft(k, "-"), "-", "_")
		if _, ok := byName[k]; !ok {
			if len(names) == 0 {
				return nil, nil, usagef("unknown parameter %q: the script takes no parameters", k)
			}
			return nil, nil, usagef("unknown parameter %q%s; the script takes %s", k, didYouMean(k, names), strings.Join(names, ", "))
		}
		if _, dup := set[k]; dup {
			return nil, nil, usagef("parameter %s given twice", k)
		}
		set[k] = v
	}
	values = map[string]any{}
	var positional []string
	for _, p := range iface.Params {
		raw, ok := set[p.Name]
		if !ok {
			if p.Required || (p.Default == nil && p.Flag == "") {
				return nil, nil, usagef("missing parameter %s (%s%s): give --param %s=VALUE", p.Name, p.Type, helpSuffix(p.Help), p.Name)
			}
			values[p.Name] = p.Default
			continue
		}
		v, err := convert(p, raw)
		if err != nil {
			return nil, nil, err
		}
		values[p.Name] = v
		switch {
		case p.Flag == "":
			positional = append(positional, raw)
		case p.Action == "store_true" || p.Action == "store_false":
			if v.(bool) == (p.Action == "store_true") {
				args = append(args, p.Flag)
			}
		default:
			args = append(args, p.Flag, raw)
		}
	}
	// Positionals after "--", so a value starting with "-" stays a value.
	if len(positional) > 0 {
		args = append(append(args, "--"), positional...)
	}
	return args, values, nil
}

func helpSuffix(h string) string {
	if h == "" {
		return ""
	}
	return ": " + h
}

func didYouMean(k string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := spelling.Distance(k, n); d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// convert reads raw as p's type.
func convert(p Param, raw string) (any, error) {
	var v any
	var err error
	switch p.Type {
	case "int":
		var n int64
		n, err = strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
		v = n
	case "float":
		var f float64
		f, err = strconv.ParseFloat(strings.TrimSpace(raw), 64)
		v = f
	case "bool":
		var b bool
		b, err = strconv.ParseBool(strings.TrimSpace(raw))
		v = b
	default:
		v = raw
	}
	if err != nil {
		return nil, usagef("parameter %s: %q is not a%s %s", p.Name, raw, article(p.Type), p.Type)
	}
	if len(p.Choices) > 0 {
		for _, c := range p.Choices {
			if fmt.Sprint(c) == fmt.Sprint(v) {
				return v, nil
			}
		}
		return nil, usagef("parameter %s: %q is not one of %v", p.Name, raw, p.Choices)
	}
	return v, nil
}

func article(t string) string {
	if t == "int" {
		return "n"
	}
	return ""
}
