package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"wright/bench"
	"wright/library"
	"wright/library/rerun"
	"wright/run/config"
	"wright/run/harness"
	"wright/run/rundir"
)

// saveRun is --save-as: a run that ended Submitted with the judge's label
// 1 on a final run gives the library a new version of name.
func saveRun(cmd *cobra.Command, lib *library.Library, name string, cfg *config.Config, task harness.Task, res rundir.Result) error {
	stderr := cmd.ErrOrStderr()
	rerun.WrightVersion = version
	spec, err := rerun.VersionFromRun(cmd.Context(), cfg, task.Text, task.StartURL, res)
	if err != nil {
		fmt.Fprintf(stderr, "wright: script %q not saved: %v\n", name, err)
		return &exitError{code: 1, err: errSilent}
	}
	spec.Name, spec.Source = name, "run"
	if prev, err := lib.Latest(name); err == nil {
		if old, err := prev.Script(); err == nil {
			spec.Diff = library.DiffScripts(fmt.Sprintf("v%d/%s", prev.Version.Version, library.ScriptFile), "new/"+library.ScriptFile, string(old), string(spec.Script))
		}
	}
	saved, err := lib.Save(spec)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wright: saved script %s v%d in %s\n", name, saved.Version.Version, saved.Dir)
	if len(saved.Interface.Params) == 0 {
		fmt.Fprintf(stderr, "wright: %s takes no parameters: a rerun repeats the task as it is (-c crafted_cli makes the script a tool with inputs)\n", name)
	} else {
		fmt.Fprintf(stderr, "wright: parameters: %s\n", paramList(saved.Interface.Params))
	}
	return nil
}

func paramList(ps []library.Param) string {
	s := ""
	for i, p := range ps {
		if i > 0 {
			s += ", "
		}
		s += p.Name + " (" + p.Type
		if p.Required {
			s += ", required"
		} else if p.Default != nil {
			s += fmt.Sprintf(", default %v", p.Default)
		}
		s += ")"
	}
	return s
}

// viaLine is bench's one line on the paths that served its attempts.
func viaLine(sum bench.Summary) string {
	var parts []string
	for _, k := range []string{bench.ViaRerun, bench.ViaHeal, bench.ViaAgent} {
		if r, ok := sum.ByVia[k]; ok {
			parts = append(parts, fmt.Sprintf("%s %d (%s passed)", k, r.Attempts, rateText(r.SuccessRate)))
		}
	}
	line := "served by " + strings.Join(parts, ", ")
	if sum.CostSaved != nil {
		line += fmt.Sprintf("; cost saved $%.4f", *sum.CostSaved)
	}
	return line
}
