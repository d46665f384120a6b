package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"wright/internal/spelling"
)

// freeMaps are settings whose keys are the user's own (variable names, the
// judge's model keys, HTTP headers, an inline output schema): anything
// below them is accepted. Struct fields of map type are free as well
// (knownKeys finds them).
var freeMaps = []string{"env.env", "gate.model", "agent.output_schema"}

// checkKeys refuses keys no part of wright reads: a typo such as
// agent.step_limt would otherwise be ignored and the run go ahead with the
// default. The error names the closest known key.
func checkKeys(settings map[string]any) error {
	known, free := map[string]bool{}, append([]string{}, freeMaps...)
	knownKeys(reflect.TypeOf(Config{}), "", known, &free)
	var unknown []string
	walkLeaves(settings, "", func(key string) {
		if known[key] || isSection(key, known) {
			return
		}
		for _, f := range free {
			if key == f || strings.HasPrefix(key, f+".") {
				return
			}
		}
		unknown = append(unknown, key)
	})
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	names := make([]string, 0, len(known))
	for k := range known {
		names = append(names, k)
	}
	names = append(names, freeMaps...)
	sort.Strings(names)
	var problems []string
	for _, k := range unknown {
		msg := fmt.Sprintf("unknown key %s", k)
		if best := closest(k, names); best != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", best)
		}
		problems = append(problems, msg)
	}
	return fmt.Errorf("config: %s", strings.Join(problems, "; "))
}

// knownKeys collects the dotted mapstructure names of t's leaves; fields of
// map type go to free instead.
func knownKeys(t reflect.Type, prefix string, known map[string]bool, free *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("mapstructure"), ",")
		if tag == "" || tag == "-" || !f.IsExported() {
			continue
		}
		key := prefix + tag
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch ft.Kind() {
		case reflect.Struct:
			knownKeys(ft, key+".", known, free)
		case reflect.Map:
			*free = append(*free, key)
		default:
			known[key] = true
		}
	}
}

// isSection reports a key that names a section (given as an empty map).
func isSection(key string, known map[string]bool) bool {
	for k := range known {
		if strings.HasPrefix(k, key+".") {
			return true
		}
	}
	return false
}

func walkLeaves(tree map[string]any, prefix string, visit func(string)) {
	for k, v := range tree {
		key := prefix + strings.ToLower(k)
		if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
			walkLeaves(sub, key+".", visit)
			continue
		}
		visit(key)
	}
}

// closest is the known key nearest to key by edit distance, or "" when
// none is near enough to be a plausible typo.
func closest(key string, names []string) string {
	best, bestD := "", -1
	for _, n := range names {
		d := spelling.Distance(key, n)
		// A key in the wrong section (step_limit under model) is as
		// likely as a misspelling: compare the last parts too.
		if last := key[strings.LastIndexByte(key, '.')+1:]; last == n[strings.LastIndexByte(n, '.')+1:] {
			d = min(d, 1)
		}
		if bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	if bestD < 0 || bestD > max(3, len(key)/3) {
		return ""
	}
	return best
}
