package env

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ErrNegativeStep is a step number that cannot name the step's files.
var ErrNegativeStep = errors.New("negative step number")

// StartStep is the check every Execute starts with: a step number that can
// name files, and a context still alive.
func StartStep(ctx context.Context, step int) error {
	if step < 0 {
		return fmt.Errorf("execute: %w %d", ErrNegativeStep, step)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("execute step %d: %w", step, err)
	}
	return nil
}

// Default checks an option that must not be negative, and gives it def
// when it is zero.
func Default[T int | time.Duration](v *T, def T, name string) error {
	if *v < 0 {
		return fmt.Errorf("negative %s %v", name, *v)
	}
	if *v == 0 {
		*v = def
	}
	return nil
}

// Workspace makes dir absolute, checks that it is a directory and creates
// the given subdirectories in it.
func Workspace(dir string, subdirs ...string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("workspace %q: %w", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("workspace: %w", err)
	} else if !fi.IsDir() {
		return "", fmt.Errorf("workspace %s is not a directory", abs)
	}
	for _, sub := range subdirs {
		if err := os.MkdirAll(filepath.Join(abs, sub), 0o755); err != nil {
			return "", err
		}
	}
	return abs, nil
}
