//go:build !linux

package harness

import (
	"wright/browser"
	"wright/browser/driver"
	"wright/browser/probe"
)

// DriverSpawnEnv and DriverWarmEnv: see the Linux file. Elsewhere scripts
// start their own drivers and browsers: serving them from wright's process
// is Linux-only for now, as the sandbox it began with is.
const (
	DriverSpawnEnv = "WRIGHT_DRIVER_SPAWN"
	DriverWarmEnv  = "WRIGHT_DRIVER_WARM"
)

type scriptDrivers struct{}

func startScriptDrivers(string, browser.Options, driver.HAROptions, *warmBrowser, bool) (*scriptDrivers, error) {
	return nil, errNoScriptDrivers
}

func startProbeDrivers(string, browser.Options, driver.HAROptions, *warmBrowser, bool, *probe.Request) (*scriptDrivers, error) {
	return nil, errNoScriptDrivers
}

func (d *scriptDrivers) socket() string { return "" }
func (d *scriptDrivers) close()         {}
