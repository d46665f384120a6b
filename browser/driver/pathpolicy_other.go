//go:build !linux

package driver

import (
	"errors"
	"os"
)

// Without openat2 the policy cannot open a name without following links,
// so a confined server refuses file access rather than pretend.

var errNoBeneath = errors.New("confined file access needs Linux (openat2)")

func (r fileRoot) openBeneath(string) (*os.File, error) { return nil, errNoBeneath }
func (r fileRoot) noLinks(string) error                 { return errNoBeneath }
func (r fileRoot) mkdirBeneath(string) error            { return errNoBeneath }
func (r fileRoot) writeBeneath(string, []byte) error    { return errNoBeneath }
