package gate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Names of the files a final run leaves behind (README, "The run
// directory"). The model's prompts, the gate's refusals and `wright
// reflect` all speak of them, so they live in one place.
const (
	FinalRunsDir    = "final_runs"
	FinalScriptName = "final_script.py"
	FinalLogName    = "final_script_log.txt"
	VerdictName     = "self_reflect_result.json"
	ScreenshotsDir  = "screenshots"
	// VideoDir holds a final run's videos (gate.video), one WebM per page.
	VideoDir      = "video"
	ReflectConfig = "self_reflect_config.json"
)

// VideoEnv is the environment variable that asks `wright driver` to record
// a video of every page it opens into the directory it names; the rerun
// gate sets it to the run's VideoDir when RerunOptions.Video is on.
const VideoEnv = "WRIGHT_VIDEO"

// RunFolder is one final_runs/run_<N> directory.
type RunFolder struct {
	N    int    // the run number: run_3 and run_003 are both 3
	Name string // the folder's own name, as it is on disk
	Path string // the folder's path (joined onto the runs directory given)
}

var runFolderRE = regexp.MustCompile(`^run_([0-9]+)$`)

// ListRuns returns the run_<N> folders under runsDir, oldest first. Other
// entries are ignored. Two folders with the same number (run_3 and run_003)
// are ordered by name so the result is deterministic; the gate treats the
// last one as the newest. A missing runsDir is an error wrapping
// fs.ErrNotExist.
func ListRuns(runsDir string) ([]RunFolder, error) {
	entries, err := os.ReadDir(runsDir)
	if err != nil {
		return nil, err
	}
	var runs []RunFolder
	for _, e := range entries {
		m := runFolderRE.FindStringSubmatch(e.Name())
		if m == nil || !isDir(filepath.Join(runsDir, e.Name()), e) {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil { // more digits than an int holds: not a run we wrote
			continue
		}
		runs = append(runs, RunFolder{N: n, Name: e.Name(), Path: filepath.Join(runsDir, e.Name())})
	}
	sort.Slice(runs, func(i, j int) bool {
		if runs[i].N != runs[j].N {
			return runs[i].N < runs[j].N
		}
		return runs[i].Name < runs[j].Name
	})
	return runs, nil
}

// isDir follows a symlinked run folder: a model may well link one.
func isDir(path string, e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// NewestRun returns the run folder with the largest number under runsDir.
// ok is false when there is none.
func NewestRun(runsDir string) (run RunFolder, ok bool, err error) {
	runs, err := ListRuns(runsDir)
	if err != nil || len(runs) == 0 {
		return RunFolder{}, false, err
	}
	return runs[len(runs)-1], true, nil
}

// NextRunNumber is the number the next run folder gets: one past the
// largest, or 1.
func NextRunNumber(runsDir string) (int, error) {
	run, ok, err := NewestRun(runsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return 1, nil
	}
	if err != nil {
		return 0, err
	}
	if !ok {
		return 1, nil
	}
	return run.N + 1, nil
}

var imageExts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true}

// IsImageName reports whether a file name has the extension of an image the
// judge can read.
func IsImageName(name string) bool {
	return imageExts[strings.ToLower(filepath.Ext(name))]
}

var finalExecRE = regexp.MustCompile(`^final_execution_([0-9]+)(?:_|\.|$)`)

// RunScreenshots lists the screenshots of one run folder in the order the
// script took them: files named final_execution_<n>_... by n, then any
// other image by name. It looks in the folder itself and, recursively, in
// its screenshots/ subfolder, since scripts save to either.
func RunScreenshots(runDir string) ([]string, error) {
	var paths []string
	top, err := os.ReadDir(runDir)
	if err != nil {
		return nil, err
	}
	for _, e := range top {
		if !e.IsDir() && IsImageName(e.Name()) {
			paths = append(paths, filepath.Join(runDir, e.Name()))
		}
	}
	shots := filepath.Join(runDir, ScreenshotsDir)
	err = filepath.WalkDir(shots, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == shots && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipDir
			}
			return err
		}
		if !d.IsDir() && IsImageName(d.Name()) {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list screenshots: %w", err)
	}
	SortScreenshots(paths)
	return paths, nil
}

// SortScreenshots orders paths by the n of final_execution_<n>_ (numeric,
// so 10 comes after 9), then the rest by base name, then by full path.
func SortScreenshots(paths []string) {
	key := func(p string) (int, bool) {
		m := finalExecRE.FindStringSubmatch(filepath.Base(p))
		if m == nil {
			return 0, false
		}
		n, err := strconv.Atoi(m[1])
		return n, err == nil
	}
	sort.SliceStable(paths, func(i, j int) bool {
		ni, oki := key(paths[i])
		nj, okj := key(paths[j])
		if oki != okj {
			return oki // numbered shots first
		}
		if oki && ni != nj {
			return ni < nj
		}
		bi, bj := filepath.Base(paths[i]), filepath.Base(paths[j])
		if bi != bj {
			return bi < bj
		}
		return paths[i] < paths[j]
	})
}

// NewestRunWithScreenshots walks the run folders from the newest down and
// returns the first that holds screenshots, with them. ok is false when no
// run has any.
func NewestRunWithScreenshots(runsDir string) (run RunFolder, shots []string, ok bool, err error) {
	runs, err := ListRuns(runsDir)
	if err != nil {
		return RunFolder{}, nil, false, err
	}
	for i := len(runs) - 1; i >= 0; i-- {
		shots, err := RunScreenshots(runs[i].Path)
		if err != nil {
			return RunFolder{}, nil, false, fmt.Errorf("%s: %w", runs[i].Name, err)
		}
		if len(shots) > 0 {
			return runs[i], shots, true, nil
		}
	}
	return RunFolder{}, nil, false, nil
}

// RelToWorkspace writes a path inside the workspace relative to it, so a
// verdict stays valid when the run folder is moved or copied.
func RelToWorkspace(ws, p string) string {
	rel, err := filepath.Rel(ws, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return filepath.ToSlash(rel)
}
