package scratch

import (
	"fmt"
	"os"
	"strings"
)

// startTime is the process's start time in clock ticks since boot (field
// 22 of /proc/<pid>/stat), which tells a pid's reuse from its first holder.
func startTime(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); field 22 is f[19].
	if len(f) < 20 {
		return ""
	}
	return f[19]
}
