package main

import (
	"runtime"

	"wright/run/config"
	"wright/trust/sandbox"
)

// checkSandbox says whether the model's processes run under bubblewrap
// (env.sandbox), and if not, what that leaves open and how to fix it.
func checkSandbox(cfg *config.Config) check {
	mode := sandbox.ModeAuto
	if cfg != nil && cfg.Env.Sandbox != "" {
		mode = cfg.Env.Sandbox
	}
	c := check{name: "sandbox"}
	if mode == sandbox.ModeNone {
		c.ok, c.warn = true, true
		c.detail = "env.sandbox is none: the model's commands run with your own rights, see the whole file system and reach the network directly (the URL policy is then only advice to them)"
		c.fix = "set env.sandbox: auto (the default) on Linux with bubblewrap installed"
		return c
	}
	ok, why := sandbox.BwrapAvailable()
	if ok {
		c.ok = true
		c.detail = "the model's shell and Python runner run under bubblewrap: read-only system, the workspace the only writable place, wright's processes invisible, network only through the URL policy"
		return c
	}
	c.detail = "no bubblewrap sandbox: " + why + "; the model's commands run with your own rights and can reach the network around the URL policy"
	if runtime.GOOS == "darwin" {
		c.fix = "none on macOS: run wright as a user whose files you are prepared to let the model's commands touch"
	} else {
		c.fix = "install bubblewrap (Debian: apt-get install bubblewrap; `make deps` does it) and allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)"
	}
	// auto falls back to no sandbox (a warning); bwrap cannot run at all.
	c.ok, c.warn = mode == sandbox.ModeAuto, mode == sandbox.ModeAuto
	if mode == sandbox.ModeBwrap {
		c.detail = "env.sandbox is bwrap, but " + c.detail
	}
	return c
}
