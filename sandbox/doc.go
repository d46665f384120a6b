// Package sandbox holds what confines the processes a run starts for the
// model: their own PID namespace, so that everything they start ends with
// them (even after `setsid`, even when wright itself is SIGKILLed), and the
// parent-death signal that takes them down with wright.
package sandbox
