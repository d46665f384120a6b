package harness

import (
	"fmt"
	"os"
	"path/filepath"

	"wright/browser/driver"
	"wright/browser/python"
	"wright/run/config"
)

// ScriptVars are the variables the model's code runs with in a run's
// workspace ws (the browser client on PYTHONPATH, the task, the final
// script's path, the wright binary and the browser settings), on top of
// env.env. A rerun of a final script outside the loop uses the same.
func ScriptVars(cfg *config.Config, runDir, ws, executable string) (map[string]string, error) {
	vars := map[string]string{}
	for k, v := range cfg.Env.Vars {
		vars[k] = v
	}
	vars["WORKSPACE_DIR"] = ws
	vars["TASK_JSON"] = filepath.Join(ws, "task.json")
	vars["FINAL_SCRIPT_PATH"] = filepath.Join(ws, "final_script.py")
	vars["WRIGHT_BIN"] = executable
	// The browser client goes beside the run, not in the workspace, so the
	// model's file listings stay its own.
	lib := filepath.Join(runDir, "lib", "python")
	if _, err := python.Install(lib); err != nil {
		return nil, fmt.Errorf("install the browser client: %w", err)
	}
	vars["PYTHONPATH"] = joinPath(lib, os.Getenv("PYTHONPATH"))
	vars["PATH"] = joinPath(filepath.Dir(executable), os.Getenv("PATH"))
	if cfg.Browser.Executable != "" {
		vars["WRIGHT_BROWSER"] = config.Abs(cfg.Browser.Executable)
	}
	if cfg.Browser.CDPURL != "" {
		vars["WRIGHT_CDP_URL"] = cfg.Browser.CDPURL
	}
	har, err := harOptions(cfg, runDir)
	if err != nil {
		return nil, err
	}
	if har.RecordDir != "" {
		vars[driver.HARRecordEnv] = har.RecordDir
	}
	if har.Replay != "" {
		vars[driver.HARReplayEnv] = har.Replay
	}
	return vars, nil
}

// harOptions are the browser.record_har and browser.replay_har settings
// as the drivers of a run take them: recordings go to the run's har/.
func harOptions(cfg *config.Config, runDir string) (driver.HAROptions, error) {
	var o driver.HAROptions
	if cfg.Browser.RecordHAR {
		o.RecordDir = filepath.Join(runDir, "har")
		if err := os.MkdirAll(o.RecordDir, 0o755); err != nil {
			return o, fmt.Errorf("browser.record_har: %w", err)
		}
	}
	if p := cfg.Browser.ReplayHAR; p != "" {
		abs := config.Abs(p)
		if _, err := os.Stat(abs); err != nil {
			return o, fmt.Errorf("browser.replay_har: %w", err)
		}
		o.Replay = abs
	}
	return o, nil
}

// Environ is this process's environment without the API key variables the
// config names, with vars set on top: what a script the harness starts gets.
func Environ(cfg *config.Config, vars map[string]string) []string {
	out := hiddenEnviron(cfg.KeyNames())
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	return out
}
