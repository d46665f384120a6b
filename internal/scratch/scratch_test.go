package scratch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// Folders of a dead maker go; those of a live one, of this process, and
// those without an owner file stay.
func TestSweepRemovesOnlyTheDeads(t *testing.T) {
	dir := t.TempDir()
	mine, err := MkdirTemp(dir, "mine-")
	if err != nil {
		t.Fatal(err)
	}
	if namedPid(filepath.Base(mine)) != os.Getpid() {
		t.Errorf("%s does not name its maker %d", filepath.Base(mine), os.Getpid())
	}
	// A process that has ended: its pid is free (or reused, with another
	// start time).
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(dir, Prefix+"dead")
	os.MkdirAll(dead, 0o755)
	os.WriteFile(filepath.Join(dead, OwnerFile), []byte(strconv.Itoa(cmd.Process.Pid)+" 1\n"), 0o600)
	os.WriteFile(filepath.Join(dead, "profile"), []byte("x"), 0o600)
	// A live process: the parent of this test (started before us).
	live := filepath.Join(dir, Prefix+"live")
	os.MkdirAll(live, 0o755)
	os.WriteFile(filepath.Join(live, OwnerFile), []byte(ownerLine(os.Getppid())), 0o600)
	// A live pid with another start time: reused.
	reused := filepath.Join(dir, Prefix+"reused")
	os.MkdirAll(reused, 0o755)
	os.WriteFile(filepath.Join(reused, OwnerFile), []byte(strconv.Itoa(os.Getppid())+" 1\n"), 0o600)
	unowned := filepath.Join(dir, Prefix+"unowned")
	os.MkdirAll(unowned, 0o755)
	// Killed between making the folder and writing its owner file: the
	// pid in the name decides, an empty owner file counting as none.
	namedDead := filepath.Join(dir, Prefix+"net-p"+strconv.Itoa(cmd.Process.Pid)+"-12345")
	os.MkdirAll(namedDead, 0o755)
	namedEmpty := filepath.Join(dir, Prefix+"l"+"p"+strconv.Itoa(cmd.Process.Pid)+"-6")
	os.MkdirAll(namedEmpty, 0o755)
	os.WriteFile(filepath.Join(namedEmpty, OwnerFile), nil, 0o600)
	namedLive := filepath.Join(dir, Prefix+"net-p"+strconv.Itoa(os.Getppid())+"-12345")
	os.MkdirAll(namedLive, 0o755)
	notPid := filepath.Join(dir, Prefix+"net-pxyz-12345")
	os.MkdirAll(notPid, 0o755)
	other := filepath.Join(dir, "other-dead")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, OwnerFile), []byte(strconv.Itoa(cmd.Process.Pid)+" 1\n"), 0o600)

	removed := Sweep(dir)
	gone := map[string]bool{}
	for _, r := range removed {
		gone[r] = true
	}
	want := map[string]bool{dead: true, reused: startTime(os.Getppid()) != "", namedDead: true, namedEmpty: true}
	for _, d := range []string{mine, dead, live, reused, unowned, other, namedDead, namedEmpty, namedLive, notPid} {
		_, err := os.Stat(d)
		if exists := err == nil; exists == want[d] {
			t.Errorf("%s: exists %v after the sweep, want removed %v", filepath.Base(d), exists, want[d])
		}
	}
}
