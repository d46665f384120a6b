package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"wright/library"
	"wright/library/rerun"
	"wright/run/config"
	"wright/run/gate"
	"wright/run/harness"
	"wright/trust/keyring"
)

// rerunFlags are `wright rerun`'s and `wright heal`'s.
type rerunFlags struct {
	library              string
	params               []string
	verify               string
	outputDir            string
	startURL             string
	json, verbose        bool
	heal                 bool
	allowInterfaceChange bool
	healSteps            int
	healCost             float64
	configs              []string
	model, baseURL       string
}

func (f *rerunFlags) register(cmd *cobra.Command, heal bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.library, "library", "", "the script library (default $"+library.EnvDir+", else the user's data directory)")
	fl.StringArrayVarP(&f.params, "param", "p", nil, "an input as name=value (repeatable): --param item=x runs the script with --item x")
	fl.StringVar(&f.verify, "verify", "", "judge, schema, both or none (default: both when the script has an output schema, else judge)")
	fl.StringVarP(&f.outputDir, "output-dir", "o", "", "where the rerun folder is made (default: the script's reruns/ folder in the library)")
	fl.StringVar(&f.startURL, "start-url", "", "start here instead of the saved start URL (the site moved)")
	fl.BoolVar(&f.json, "json", false, "print one JSON object: verified or not and why, the version, the inputs, output, the rerun's folder")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "show a heal's steps even when stderr is not a terminal")
	if !heal {
		fl.BoolVar(&f.heal, "heal", false, "when the rerun fails, repair the script with an agent run and save the repair as the next version")
	}
	fl.BoolVar(&f.allowInterfaceChange, "allow-interface-change", false, "save a repair that changes the script's parameters or the shape of its output (marked as an interface change)")
	fl.IntVar(&f.healSteps, "heal-step-limit", rerun.DefaultHealSteps, "maximum model calls of a heal")
	fl.Float64Var(&f.healCost, "heal-cost-limit", 0, "USD a heal may spend (0: agent.cost_limit)")
	fl.StringArrayVarP(&f.configs, "config", "c", nil, "config layer, as for wright run (the judge's and a heal's model, the sandbox, the browser)")
	fl.StringVar(&f.model, "model", "", "the model of a heal, or replay:<file.jsonl> (model.name)")
	fl.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible endpoint (model.base_url)")
}

func init() {
	var f rerunFlags
	cmd := &cobra.Command{
		Use:   "rerun NAME [--param name=value ...]",
		Short: "Rerun a saved script with other inputs and verify the rerun",
		Long: `Run a library script with the given inputs in a fresh run folder, under the same
sandbox, URL policy and secrets as a run, then verify that rerun: its result
against the saved output schema and the screenshot judge on the rerun's own
screenshots and log, against the saved task filled with the inputs. The answer
(result.json, parsed) is printed and the rerun is added to the script's history.
With --heal a failed rerun starts an agent run that repairs the script.

Exit codes: 0 verified, 1 not verified (the reason is printed), 2 a usage
error (an unknown, missing or mistyped parameter; nothing ran).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runRerun(cmd, args[0], f) },
	}
	f.register(cmd, false)
	rootCmd.AddCommand(cmd)

	var hf rerunFlags
	heal := &cobra.Command{
		Use:   "heal NAME [--param name=value ...]",
		Short: "Rerun a saved script (default inputs) and repair it when it fails",
		Long: `wright rerun NAME --heal: rerun the script and, when the rerun is not verified,
start a workspace-mode agent run seeded with the script and the failing rerun's
files, told to repair it without changing its interface. A repair that passes
the gate on a fresh run is saved as the next version, with its diff.

Exit codes: 0 verified (at once or after the repair), 1 not verified, 2 usage.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			hf.heal = true
			return runRerun(cmd, args[0], hf)
		},
	}
	hf.register(heal, true)
	rootCmd.AddCommand(heal)
}

// rerunSetup is what rerun, heal and check start from: the config, the
// library, a warning printer, and the config's keys out of the process's
// environment block.
func rerunSetup(cmd *cobra.Command, f rerunFlags) (*config.Config, *library.Library, func(string), error) {
	cfg, err := rerunConfig(f)
	if err != nil {
		return nil, nil, nil, err
	}
	lib, err := library.Open(f.library)
	if err != nil {
		return nil, nil, nil, usageError("%v", err)
	}
	warn := func(msg string) { fmt.Fprintln(cmd.ErrOrStderr(), "wright: warning:", msg) }
	if err := keyring.Drop(cfg.KeyNames()); err != nil {
		warn(err.Error())
	}
	return cfg, lib, warn, nil
}

// rerunConfig loads the config of a rerun: -c layers and the model flags.
func rerunConfig(f rerunFlags) (*config.Config, error) {
	overrides := map[string]any{}
	if f.model != "" {
		overrides["model.name"] = f.model
	}
	if f.baseURL != "" {
		overrides["model.base_url"] = f.baseURL
	}
	cfg, err := config.Load(f.configs, overrides)
	if err != nil {
		return nil, usageError("%v", err)
	}
	return cfg, nil
}

func runRerun(cmd *cobra.Command, name string, f rerunFlags) error {
	cfg, lib, warn, err := rerunSetup(cmd, f)
	if err != nil {
		return err
	}
	opts := rerun.Options{
		Library: lib, Name: name, Params: f.params, Verify: f.verify, OutputDir: f.outputDir,
		StartURL: f.startURL, Config: cfg, Heal: f.heal, AllowInterfaceChange: f.allowInterfaceChange,
		HealStepLimit: f.healSteps, HealCostLimit: f.healCost, Warn: warn,
	}
	if f.heal && (f.verbose || isTerminal(os.Stderr)) {
		opts.Observer = harness.TextObserver(cmd.ErrOrStderr())
	}
	rerun.WrightVersion = version
	p, err := rerun.Prepare(opts)
	if err != nil {
		return rerunError(err)
	}
	rep, err := p.Run(cmd.Context())
	if cmd.Context().Err() != nil {
		// Ctrl-C: what the rerun saved stays, and the exit code says it
		// was stopped, not that the script failed.
		if rep.RunDir != "" {
			fmt.Fprintf(cmd.ErrOrStderr(), "wright: %s interrupted; the rerun folder is kept: %s\n", name, rep.RunDir)
		}
		return &exitError{code: interruptedCode(), err: errSilent}
	}
	if err != nil {
		var ue *library.UsageError
		if errors.As(err, &ue) {
			return usageError("%v", err)
		}
		if rep.RunDir == "" {
			return err
		}
		fmt.Fprintln(cmd.ErrOrStderr(), "wright:", err)
	}
	if f.json {
		if perr := printJSON(cmd.OutOrStdout(), rep); perr != nil {
			return perr
		}
	} else {
		printRerun(cmd.OutOrStdout(), cmd.ErrOrStderr(), rep)
	}
	if !rep.Verified {
		return &exitError{code: 1, err: errSilent}
	}
	return nil
}

func rerunError(err error) error {
	var ue *library.UsageError
	if errors.As(err, &ue) {
		return usageError("%v", err)
	}
	return err
}

// printRerun: the answer on stdout, the account on stderr.
func printRerun(stdout, stderr io.Writer, rep rerun.Report) {
	state := "verified"
	if rep.Verify == string(harness.VerifyNone) {
		state = "ran cleanly (not verified: --verify none)"
	}
	if !rep.Verified {
		state = "NOT verified: " + rep.Reason
	}
	fmt.Fprintf(stderr, "wright: %s v%d %s\n", rep.Name, rep.Version, state)
	if !rep.Verified && rep.ErrorTail != "" {
		fmt.Fprintf(stderr, "wright: the end of its error (the whole log: %s):\n", filepath.Join(rep.FinalRun, gate.FinalLogName))
		for _, l := range strings.Split(rep.ErrorTail, "\n") {
			fmt.Fprintln(stderr, "    "+l)
		}
	}
	if h := rep.Heal; h != nil {
		switch {
		case h.Saved > 0:
			fmt.Fprintf(stderr, "wright: healed into v%d (%d model calls, $%.4f; run %s); wright scripts diff %s\n", h.Saved, h.ModelCalls, h.Cost, h.RunDir, rep.Name)
		default:
			fmt.Fprintf(stderr, "wright: the heal did not save a version (%s; run %s)\n", orText(h.Refused, h.ExitStatus), h.RunDir)
		}
	}
	tokens := fmt.Sprintf("%d tokens", rep.Tokens)
	if rep.ModelCalls > 0 && rep.Tokens == 0 {
		// A recording or an endpoint that counts nothing: 0 would read as
		// a judge that read nothing.
		tokens = "no token counts reported"
	}
	fmt.Fprintf(stderr, "wright: rerun folder %s (%.1fs, judge: %d calls, %s, $%.4f)\n", rep.RunDir, rep.Seconds, rep.ModelCalls, tokens, rep.Cost)
	if rep.Output != nil && rep.Verified {
		_ = printJSON(stdout, rep.Output)
	}
}

func orText(s, alt string) string {
	if strings.TrimSpace(s) == "" {
		return alt
	}
	return s
}
