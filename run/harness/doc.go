// Package harness is one wright run as a library call. `wright run`,
// `wright demo` and `wright bench` all start runs through it.
//
// The exported API, kept stable for the packages built on it:
//
//   - Build(cfg *config.Config, opts Options) (*Harness, error) checks the
//     templates, the model and judge settings and picks the environment
//     from agent.mode (Modes lists them). It starts nothing; its errors are
//     configuration errors.
//   - (*Harness).Run(ctx, Task) (rundir.Result, error) makes a fresh run
//     directory, starts the run's own parts (key proxy, gate, environment,
//     model client), runs the loop to an exit status and ends every
//     process it started before it returns. The result is result.json's
//     content: exit status, final response, steps, usage and cost, seconds,
//     run directory, and the gate's label and judged run number (nil when
//     the gate is off). Every exit status is a result; the error is for a
//     run that could not start (*RunDirError when the run directory is
//     unusable) or whose files could not be saved. Cancelling ctx ends the
//     run as Interrupted.
//   - Options: OutputDir (runs are made in <OutputDir>/<task_id>_<time>,
//     with _2, _3, ... when a name is taken), RunDir (one exact directory),
//     Observer (agent.Observer: RunStarted, StepStarted with the command's
//     first line, StepEnded with the status and the tokens so far,
//     DoneRefused, Compacted, RunEnded; Event.RunDir tells runs apart),
//     Warn, Executable (the wright binary the model's code calls; default
//     this process's).
//   - TextObserver(w) renders events as `wright run` shows them; IDFromTask
//     makes a task id from its words.
//
// For example:
//
//	h, err := harness.Build(cfg, harness.Options{OutputDir: "runs"})
//	if err != nil { ... }
//	res, err := h.Run(ctx, harness.Task{Text: "find the price of ...", StartURL: url})
//
// A Harness holds only the config and options, which runs read and never
// change: any number of Run calls may go on at once in one process. Each
// run has its own directory, workspace, shell or Python process, browsers,
// key-proxy socket (in its own temporary directory), loopback ports
// (chosen by the system) and model client. The package has no mutable
// package-level state.
package harness
