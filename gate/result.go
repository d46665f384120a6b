package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"wright/output"
)

// A run with an output schema returns structured data: the final script
// writes it to result.json in its run folder. The gates check that file
// against the schema before any judge is asked, and the judge reads it.

// checkRunResult explains what is wrong with a run folder's result.json,
// or returns "" when it satisfies schema (or there is no schema).
func checkRunResult(schema *output.Schema, runDir, rel string) string {
	if schema == nil {
		return ""
	}
	path := filepath.Join(runDir, output.ResultFile)
	_, problems, err := schema.ReadResult(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("The final run %s has no %s. This task returns structured data: final_script.py must write its result, a JSON value valid against the output schema, to %s in its run folder ($RUN_DIR/%s).\n",
			rel, output.ResultFile, output.ResultFile, output.ResultFile)
	case err != nil:
		return fmt.Sprintf("The result %s/%s cannot be read (%v).\n", rel, output.ResultFile, err)
	case len(problems) > 0:
		return fmt.Sprintf("The result %s/%s is not valid against the output schema:\n%s\nfinal_script.py must write a JSON value of the schema's shape there.\n",
			rel, output.ResultFile, output.Describe(problems))
	}
	return ""
}

// resultForJudge is the block the final verdict prompt gets when the run
// folder holds a result.json, or "". It is labelled data, like the log.
func resultForJudge(runDir string, limit int) string {
	if runDir == "" {
		return ""
	}
	data, err := os.ReadFile(filepath.Join(runDir, output.ResultFile))
	if err != nil {
		return ""
	}
	var buf bytes.Buffer
	if json.Indent(&buf, bytes.TrimSpace(data), "", "  ") == nil {
		data = buf.Bytes()
	}
	return "\n\nThe run also returned this structured result (" + output.ResultFile + "). Check that every value in it is supported by the screenshots or the log, and answers the task; a result that is wrong or unsupported means the run failed. Your last line is still the Status line.\n" +
		"----- result start -----\n" + truncateMiddle(strings.TrimSpace(string(data)), limit) + "\n----- result end -----"
}
