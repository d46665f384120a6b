package driver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"wright/browser"
)

// The driver's tests browse the engine's fixture pages.
var (
	site     *httptest.Server
	noBrowse string // why browser tests skip, "" when they run
	bg       = context.Background()
)

func TestMain(m *testing.M) {
	// As `wright driver` does: the helpers of the browsers the tests end are
	// reaped here, so the checks for leftover processes see no zombies.
	if err := browser.BecomeSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, "become a subreaper:", err)
	}
	site = httptest.NewServer(http.FileServer(http.Dir("../testdata")))
	if _, err := browser.FindExecutable(""); err != nil {
		noBrowse = err.Error()
	}
	code := m.Run()
	site.Close()
	os.Exit(code)
}

func needBrowser(t testing.TB) {
	t.Helper()
	if noBrowse != "" {
		t.Skip("no browser: " + noBrowse)
	}
}

// groupAlive lists the live processes of process group pgid.
func groupAlive(pgid int) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces, so split after ')'.
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 2 && fields[2] == strconv.Itoa(pgid) {
			out = append(out, strconv.Itoa(pid)+" "+fields[0])
		}
	}
	return out
}

func waitGroupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if len(groupAlive(pgid)) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("browser processes left behind: %v", groupAlive(pgid))
}
