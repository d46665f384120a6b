package python

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"wright/internal/atomicfile"
)

// A script's `import playwright` used to compile the whole client, some
// 9,000 lines, every time it ran: a sandboxed script sees the client's
// directory read-only, so its Python could not keep the bytecode it made,
// and a run with PYTHONDONTWRITEBYTECODE set never keeps it either. That
// compile was most of a short script's import (hundreds of milliseconds on
// a loaded machine). So Install writes the bytecode too, made once per
// process by the python3 the scripts run.
//
// The files are hash-checked pycs: Python takes one only when the hash of
// the source beside it matches, so a file compiled elsewhere, or a source
// edited after the install, is never run as stale bytecode; the worst case
// is the compile the script would have done anyway.

// compiled holds the bytecode of the client, by path relative to an
// install's directory; empty when there is no python3 or it failed.
var compiled struct {
	once  sync.Once
	files map[string][]byte
}

// compileLimit bounds the one compile of a process.
const compileLimit = 60 * time.Second

// installBytecode writes the client's bytecode into dir, which Install has
// just filled with the sources. The first install of a process compiles in
// place and keeps what python3 wrote; the others copy that. It never fails
// an install: without bytecode a script compiles the client itself.
func installBytecode(dir string) {
	first := false
	compiled.once.Do(func() {
		first = true
		compiled.files = compileIn(dir)
	})
	if first {
		return
	}
	for rel, data := range compiled.files {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if os.MkdirAll(filepath.Dir(path), 0o755) != nil {
			return
		}
		// Whole or not at all: a script importing meanwhile must not read
		// half a file.
		if atomicfile.Write(path, data, 0o644) != nil {
			return
		}
	}
}

// compileIn runs python3's compileall on the client in dir and returns the
// bytecode files it wrote.
func compileIn(dir string) map[string][]byte {
	py, err := exec.LookPath("python3")
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), compileLimit)
	defer cancel()
	// The package alone: wright_browser.py is a small file, and its
	// __pycache__ would be one more entry beside the client in dir.
	cmd := exec.CommandContext(ctx, py, "-m", "compileall", "-q", "--invalidation-mode", "checked-hash",
		filepath.Join(dir, PackageName))
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if cmd.Run() != nil {
		return nil
	}
	files := map[string][]byte{}
	err = filepath.WalkDir(filepath.Join(dir, PackageName), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".pyc") || filepath.Base(filepath.Dir(path)) != "__pycache__" {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if !strings.HasPrefix(rel, PackageName+"/") {
			return nil // not the client's
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files[rel] = data
		return nil
	})
	if err != nil {
		return nil
	}
	return files
}
