package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Creating a file is the slowest part of a step on a busy disk (an ext4
// create costs milliseconds under load, more than the shell's whole round
// trip), and a step creates two: its command file and its log. So the
// next step's two files are created ahead, in the background, under
// hidden names; a step writes its command into the one already open and
// renames it into place before the shell reads it (the command is on disk
// before it runs, as before), and its log is renamed when the command is
// done. A rename costs a few tens of microseconds.

const (
	spareScript = ".wright-next.sh"
	spareLog    = ".wright-next.log"
)

// spares are the next step's files, made ready in the background.
type spares struct {
	ready  chan struct{} // closed once script and log are set (nil on failure)
	script *os.File
	log    *os.File
}

// prepareSpares starts creating the next step's files. Called with s.mu
// held, after a step (and at start).
func (s *Shell) prepareSpares() {
	sp := &spares{ready: make(chan struct{})}
	s.spare = sp
	dir := s.dir
	go func() {
		defer close(sp.ready)
		for _, sub := range []string{"steps", "logs", "tmp"} {
			_ = os.MkdirAll(filepath.Join(dir, sub), 0o755)
		}
		sp.script, _ = openSpare(filepath.Join(dir, "steps", spareScript))
		sp.log, _ = openSpare(filepath.Join(dir, "logs", spareLog))
	}()
}

func openSpare(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
}

// takeSpares returns the prepared files (either may be nil) and forgets
// them. Called with s.mu held.
func (s *Shell) takeSpares() *spares {
	sp := s.spare
	s.spare = nil
	if sp == nil {
		return &spares{}
	}
	<-sp.ready
	return sp
}

// discard closes and removes what was not used.
func (sp *spares) discard() {
	for _, f := range []*os.File{sp.script, sp.log} {
		if f != nil {
			name := f.Name()
			_ = f.Close()
			_ = os.Remove(name)
		}
	}
	sp.script, sp.log = nil, nil
}

// writeScript puts the command at path, on disk before it runs: into the
// spare file, renamed into place, or (no spare, or the command of the last
// step moved things away) written anew.
func (sp *spares) writeScript(path, text string) error {
	if f := sp.script; f != nil {
		sp.script = nil
		_, werr := f.WriteString(text)
		cerr := f.Close()
		if werr == nil && cerr == nil && os.Rename(f.Name(), path) == nil {
			return nil
		}
		_ = os.Remove(f.Name())
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// stepLog is a step's log file: the spare one, renamed to its name when the
// step is done, or one created under its name.
type stepLog struct {
	*os.File
	path string // the name it must end up with
}

func (sp *spares) openLog(path string) (*stepLog, error) {
	if f := sp.log; f != nil {
		sp.log = nil
		return &stepLog{File: f, path: path}, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &stepLog{File: f, path: path}, nil
}

// commit closes the log and gives it its name.
func (l *stepLog) commit() error {
	err := l.File.Close()
	if l.File.Name() != l.path {
		if rerr := os.Rename(l.File.Name(), l.path); rerr != nil {
			_ = os.Remove(l.File.Name())
			err = errors.Join(err, fmt.Errorf("rename log: %w", rerr))
		}
	}
	return err
}
