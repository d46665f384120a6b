// Package sandbox holds what confines the processes a run starts for the
// model: their own PID namespace, so that everything they start ends with
// them (even after `setsid`, even when wright itself is SIGKILLed), and the
// parent-death signal that takes them down with wright (Confine); and,
// where bubblewrap works, a whole sandbox (Spec.Wrap): a read-only system,
// the workspace as the only writable place, no view of wright's processes,
// and no network but wright's policy proxy, reached through a listener
// the sandbox's first process makes and hands out to the host guard,
// which carries its connections (Init).
package sandbox
