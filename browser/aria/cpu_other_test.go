//go:build !unix

package aria

import "time"

func processCPU() time.Duration { return 0 }
