package workspace

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

const (
	finalScriptName      = "final_script.py"
	finalScriptLines     = 40
	finalScriptMaxChars  = 8000
	walkEntryLimit       = 20000 // entries visited per observation, at most
	finalScriptLineBytes = 1 << 20
)

// finalScriptHead is the first lines of Dir/final_script.py, or "" when
// there is none, so the model always sees which script the gate will run.
func finalScriptHead(dir string) string {
	f, err := os.Open(filepath.Join(dir, finalScriptName))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), finalScriptLineBytes)
	var b strings.Builder
	n := 0
	for sc.Scan() {
		if n == finalScriptLines || b.Len() > finalScriptMaxChars {
			more := 1
			for sc.Scan() {
				more++
			}
			fmt.Fprintf(&b, "... (%d more lines)\n", more)
			break
		}
		b.WriteString(sc.Text())
		b.WriteByte('\n')
		n++
	}
	s := b.String()
	if len([]rune(s)) > finalScriptMaxChars {
		s = string([]rune(s)[:finalScriptMaxChars]) + "\n... (cut)\n"
	}
	return s
}

type fileTime struct {
	rel string
	mod time.Time
}

// Directories the recent-files walk never enters: the shell's own files,
// version control, and trees that are big and never what the model just
// made.
var skipTopDirs = map[string]bool{"logs": true, "steps": true, "tmp": true}
var skipAnyDirs = map[string]bool{".git": true, "node_modules": true, "__pycache__": true, ".venv": true, "venv": true, ".cache": true}

// recentFiles walks dir (bounded) and returns the newest screenshots and the
// newest other files, paths relative to dir, newest first.
func recentFiles(dir string, n int) (screenshots, files []string) {
	var shots, others []fileTime
	visited := 0
	errStop := errors.New("stop")
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		visited++
		if visited > walkEntryLimit {
			return errStop
		}
		rel, rerr := filepath.Rel(dir, path)
		if rerr != nil || rel == "." {
			return nil
		}
		if d.IsDir() {
			name := d.Name()
			if skipAnyDirs[name] || (skipTopDirs[name] && !strings.Contains(rel, string(filepath.Separator))) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, ierr := d.Info()
		if ierr != nil {
			return nil
		}
		ft := fileTime{rel: filepath.ToSlash(rel), mod: info.ModTime()}
		switch strings.ToLower(filepath.Ext(rel)) {
		case ".png", ".jpg", ".jpeg":
			shots = append(shots, ft)
		default:
			others = append(others, ft)
		}
		return nil
	})
	return newest(shots, n), newest(others, n)
}

func newest(fs []fileTime, n int) []string {
	sort.Slice(fs, func(i, j int) bool {
		if !fs[i].mod.Equal(fs[j].mod) {
			return fs[i].mod.After(fs[j].mod)
		}
		return fs[i].rel < fs[j].rel
	})
	out := make([]string, 0, min(n, len(fs)))
	for i := 0; i < len(fs) && i < n; i++ {
		out = append(out, fs[i].rel)
	}
	return out
}
