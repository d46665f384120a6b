package main

import (
	"fmt"
	"os"
	"runtime"

	"wright/env/proctab"
)

// checkPlatform says what this platform gives wright's cleanup and
// isolation, by trying it: the process table is read and this process's
// own environment looked up in it, as cleanup does for a shell's
// processes. What only Linux has is a warning elsewhere, not a failure:
// runs still work, with the limits docs/security.md describes.
func checkPlatform() check {
	c := check{name: "platform"}
	target := runtime.GOOS + "/" + runtime.GOARCH
	procs, err := proctab.List()
	if err != nil || len(procs) == 0 {
		c.detail = fmt.Sprintf("%s: the process table cannot be read (%v): processes a step leaves behind are not found at cleanup", target, err)
		c.fix = "on Linux, mount /proc; see docs/security.md, Platforms"
		return c
	}
	entry := "PATH=" + os.Getenv("PATH")
	if !proctab.HasEnv(os.Getpid(), entry) {
		c.warn = true
		c.detail = target + ": process environments cannot be read: processes that leave the shell's session and process tree are not found at cleanup"
	}
	if runtime.GOOS != "linux" {
		c.warn = true
		c.detail = target + ": " + proctab.Limits() + "; the bubblewrap sandbox needs Linux, so steps are not confined (docs/security.md, Platforms)"
	}
	if !c.warn {
		c.ok = true
		c.detail = target + ": process table and environments readable"
	}
	return c
}

// chromiumFix says how to get a browser on this platform.
func chromiumFix() string {
	if runtime.GOOS == "darwin" {
		return "install Google Chrome or Chromium (Homebrew: brew install --cask chromium), or set browser.executable / WRIGHT_BROWSER"
	}
	return "install Chromium (Debian/Ubuntu: apt-get install chromium; Fedora: dnf install chromium), or set browser.executable / WRIGHT_BROWSER"
}
