package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"wright/library"
)

// scriptsFlags are what every `wright scripts` command shares.
type scriptsFlags struct {
	library string
	json    bool
}

func init() {
	var f scriptsFlags
	cmd := &cobra.Command{
		Use:   "scripts",
		Short: "The script library: saved, verified scripts by name",
		Long: `The script library holds the scripts runs saved with --save-as: one folder per
script and one per version, in plain JSON and Python (docs/scripts.md). Rerun
one with wright rerun NAME, repair one with wright heal NAME, check them all
with wright scripts check.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.PersistentFlags().StringVar(&f.library, "library", "", "the script library (default $"+library.EnvDir+", else the user's data directory)")
	cmd.PersistentFlags().BoolVar(&f.json, "json", false, "print JSON for machines")
	open := func() (*library.Library, error) {
		lib, err := library.Open(f.library)
		if err != nil {
			return nil, usageError("%v", err)
		}
		return lib, nil
	}

	cmd.AddCommand(scriptsViewCommands(&f, open)...)
	cmd.AddCommand(scriptsRemoveCommand(open), scriptsExportCommand(open), scriptsImportCommand(&f, open))
	cmd.AddCommand(checkCommand(&f))
	rootCmd.AddCommand(cmd)
}

// scriptsViewCommands are the commands that only read the library: list,
// show, history and diff.
func scriptsViewCommands(f *scriptsFlags, open func() (*library.Library, error)) []*cobra.Command {
	return []*cobra.Command{
		{
			Use:   "list",
			Short: "List the saved scripts",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				lib, err := open()
				if err != nil {
					return err
				}
				return scriptsList(cmd.OutOrStdout(), lib, f.json)
			},
		},
		{
			Use:   "show NAME [VERSION]",
			Short: "Show a script's interface, task template and verdict (its newest version by default)",
			Args:  cobra.RangeArgs(1, 2),
			RunE: func(cmd *cobra.Command, args []string) error {
				lib, err := open()
				if err != nil {
					return err
				}
				return scriptsShow(cmd.OutOrStdout(), lib, args, f.json)
			},
		},
		{
			Use:   "history NAME",
			Short: "One line per version and per rerun of a script",
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				lib, err := open()
				if err != nil {
					return err
				}
				return scriptsHistory(cmd.OutOrStdout(), lib, args[0], f.json)
			},
		},
		{
			Use:   "diff NAME [V1 V2]",
			Short: "The diff between two versions (default: the newest against the one before)",
			Args:  cobra.RangeArgs(1, 3),
			RunE: func(cmd *cobra.Command, args []string) error {
				lib, err := open()
				if err != nil {
					return err
				}
				return scriptsDiff(cmd.OutOrStdout(), lib, args, f.json)
			},
		},
	}
}

// scriptsRemoveCommand is `wright scripts rm`.
func scriptsRemoveCommand(open func() (*library.Library, error)) *cobra.Command {
	return &cobra.Command{
		Use:   "rm NAME",
		Short: "Remove a script, every version and its history",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := open()
			if err != nil {
				return err
			}
			if err := lib.Remove(args[0]); err != nil {
				return libError(err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wright: removed %s\n", args[0])
			return nil
		},
	}
}

// scriptsExportCommand is `wright scripts export`.
func scriptsExportCommand(open func() (*library.Library, error)) *cobra.Command {
	return &cobra.Command{
		Use:   "export NAME FILE",
		Short: "Write a script (every version and its history) to a .tar.gz",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := open()
			if err != nil {
				return err
			}
			if err := lib.Export(args[0], args[1]); err != nil {
				return libError(err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wright: exported %s to %s\n", args[0], args[1])
			return nil
		},
	}
}

// scriptsImportCommand is `wright scripts import`.
func scriptsImportCommand(f *scriptsFlags, open func() (*library.Library, error)) *cobra.Command {
	var importAs string
	imp := &cobra.Command{
		Use:   "import FILE",
		Short: "Add a script from a file wright scripts export wrote",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := open()
			if err != nil {
				return err
			}
			name, err := lib.Import(args[0], importAs)
			if err != nil {
				return libError(err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wright: imported %s\n", name)
			if f.json {
				return printJSON(cmd.OutOrStdout(), map[string]string{"name": name})
			}
			return nil
		},
	}
	imp.Flags().StringVar(&importAs, "as", "", "import under this name instead of the exported one")
	return imp
}

// libError turns the library's usage problems (a bad or unknown name) into
// exit code 2.
func libError(err error) error {
	var ue *library.UsageError
	if errors.As(err, &ue) || errors.Is(err, library.ErrNotFound) {
		return usageError("%v", err)
	}
	return err
}

func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}

// listEntry is one script in `wright scripts list --json`.
type listEntry struct {
	Name     string          `json:"name"`
	Version  int             `json:"version"`
	Versions int             `json:"versions"`
	Params   []library.Param `json:"params"`
	StartURL string          `json:"start_url"`
	Template string          `json:"template"`
	Reruns   int             `json:"reruns"`
	Last     *library.Event  `json:"last_rerun,omitempty"`
}

func scriptsList(w io.Writer, lib *library.Library, asJSON bool) error {
	names, err := lib.Names()
	if err != nil {
		return err
	}
	entries := []listEntry{}
	for _, n := range names {
		vs, err := lib.Versions(n)
		if err != nil {
			return err
		}
		latest := vs[len(vs)-1]
		e := listEntry{Name: n, Version: latest.Version.Version, Versions: len(vs), Params: latest.Interface.Params, StartURL: latest.StartURL, Template: latest.Template}
		hist, _ := lib.History(n)
		for i := range hist {
			if hist[i].Kind == library.EventRerun {
				e.Reruns++
				e.Last = &hist[i]
			}
		}
		entries = append(entries, e)
	}
	if asJSON {
		return printJSON(w, entries)
	}
	if len(entries) == 0 {
		fmt.Fprintf(w, "no scripts in %s (save one with wright run ... --save-as NAME)\n", lib.Dir)
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tPARAMETERS\tRERUNS\tLAST RERUN")
	for _, e := range entries {
		last := "-"
		if e.Last != nil {
			last = "not verified"
			if e.Last.Verified != nil && *e.Last.Verified {
				last = "verified"
			}
			last += " " + e.Last.Time.Local().Format("2006-01-02 15:04")
		}
		var ps []string
		for _, p := range e.Params {
			ps = append(ps, p.Name)
		}
		fmt.Fprintf(tw, "%s\tv%d\t%s\t%d\t%s\n", e.Name, e.Version, orNone(strings.Join(ps, ", ")), e.Reruns, last)
	}
	return tw.Flush()
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func scriptsShow(w io.Writer, lib *library.Library, args []string, asJSON bool) error {
	var s library.Saved
	var err error
	if len(args) == 2 {
		n, perr := parseVersion(args[1])
		if perr != nil {
			return perr
		}
		s, err = lib.Get(args[0], n)
	} else {
		s, err = lib.Latest(args[0])
	}
	if err != nil {
		return libError(err)
	}
	if asJSON {
		return printJSON(w, struct {
			library.Version
			Dir string `json:"dir"`
		}{s.Version, s.Dir})
	}
	v := s.Version
	fmt.Fprintf(w, "%s v%d (%s, %s)\n", v.Name, v.Version, v.Source, v.Created.Local().Format("2006-01-02 15:04:05"))
	if v.HealedFrom > 0 {
		fmt.Fprintf(w, "healed from v%d", v.HealedFrom)
		if v.InterfaceChange {
			fmt.Fprint(w, " with an interface change")
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "folder:    %s\n", s.Dir)
	fmt.Fprintf(w, "start URL: %s\n", v.StartURL)
	fmt.Fprintf(w, "task:      %s\n", v.Template)
	if len(v.Interface.Params) == 0 {
		fmt.Fprintln(w, "parameters: none (a rerun repeats the task as saved)")
	} else {
		fmt.Fprintln(w, "parameters:")
		for _, p := range v.Interface.Params {
			flag := p.Flag
			if flag == "" {
				flag = "(positional)"
			}
			def := "required"
			if !p.Required && p.Default != nil {
				def = fmt.Sprintf("default %v", p.Default)
			}
			fmt.Fprintf(w, "  %-16s %-6s %-12s %s  %s\n", p.Name, p.Type, flag, def, p.Help)
		}
	}
	schema := "none"
	if v.HasSchema {
		schema = library.SchemaFile
	}
	fmt.Fprintf(w, "output schema: %s\n", schema)
	if len(v.AllowedDomains) > 0 || len(v.BlockedDomains) > 0 {
		fmt.Fprintf(w, "URL policy: allowed %v, blocked %v\n", v.AllowedDomains, v.BlockedDomains)
	}
	if len(v.Secrets) > 0 {
		fmt.Fprintf(w, "secrets:   %s\n", strings.Join(v.Secrets, ", "))
	}
	label := "none"
	if v.Verdict.Label != nil {
		label = strconv.Itoa(*v.Verdict.Label)
	}
	fmt.Fprintf(w, "verified:  judge's label %s (%s/)\n", label, library.VerifiedDir)
	fmt.Fprintf(w, "wright %s, sha256 %s\n", v.WrightVersion, v.SHA256)
	return nil
}

func parseVersion(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(strings.ToLower(s), "v"))
	if err != nil || n < 1 {
		return 0, usageError("version %q: write a whole number (1, 2, ...) or v1, v2, ...", s)
	}
	return n, nil
}

func scriptsHistory(w io.Writer, lib *library.Library, name string, asJSON bool) error {
	hist, err := lib.History(name)
	if err != nil {
		return libError(err)
	}
	if asJSON {
		if hist == nil {
			hist = []library.Event{}
		}
		return printJSON(w, hist)
	}
	latest, err := lib.Latest(name)
	if err != nil {
		return libError(err)
	}
	for _, ev := range hist {
		fmt.Fprintln(w, library.DescribeEvent(ev, latest.Interface.Params))
	}
	return nil
}

func scriptsDiff(w io.Writer, lib *library.Library, args []string, asJSON bool) error {
	name := args[0]
	vs, err := lib.Versions(name)
	if err != nil {
		return libError(err)
	}
	var from, to int
	switch len(args) {
	case 1:
		if len(vs) < 2 {
			// Nothing to compare is an answer, not a misuse: say so and
			// succeed, as a diff of two equal versions does.
			only := vs[len(vs)-1].Version.Version
			if asJSON {
				return printJSON(w, map[string]any{"name": name, "from": only, "to": only, "diff": ""})
			}
			fmt.Fprintf(w, "%s has one version (v%d): nothing to compare yet (a heal makes the next one)\n", name, only)
			return nil
		}
		from, to = vs[len(vs)-2].Version.Version, vs[len(vs)-1].Version.Version
	case 2:
		return usageError("give two versions (wright scripts diff %s V1 V2), or none", name)
	default:
		if from, err = parseVersion(args[1]); err != nil {
			return err
		}
		if to, err = parseVersion(args[2]); err != nil {
			return err
		}
	}
	d, err := lib.Diff(name, from, to)
	if err != nil {
		return libError(err)
	}
	if asJSON {
		return printJSON(w, map[string]any{"name": name, "from": from, "to": to, "diff": d})
	}
	if d == "" {
		fmt.Fprintf(w, "v%d and v%d are the same script\n", from, to)
		return nil
	}
	_, err = io.WriteString(w, d)
	return err
}
