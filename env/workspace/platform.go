package workspace

import "wright/env/proctab"

// platformNotes are what the first observation says about this platform's
// limits (on macOS: no /proc), so a run's record shows what cleanup could
// and could not see. None on Linux.
func platformNotes() []string {
	if l := proctab.Limits(); l != "" {
		return []string{"platform: " + l}
	}
	return nil
}
