//go:build !linux

package harness

import (
	"errors"

	"wright/browser"
	"wright/browser/driver"
)

// DriverSpawnEnv: see the Linux file; there is no sandbox elsewhere.
const DriverSpawnEnv = "WRIGHT_DRIVER_SPAWN"

type scriptDrivers struct{}

func startScriptDrivers(string, browser.Options, driver.HAROptions) (*scriptDrivers, error) {
	return nil, errors.New("script drivers: only sandboxed runs have them, and the sandbox is Linux-only")
}

func (d *scriptDrivers) socket() string { return "" }
func (d *scriptDrivers) close()         {}
