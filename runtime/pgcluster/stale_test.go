package pgcluster

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestRemoveStaleKeepsLiveClusters lays out the directories that test runs
// leave in the temporary directory and requires exactly the abandoned ones
// to go: a cluster whose owner died (a killed test binary), an old one of an
// earlier version whose postgres is gone; a live owner's cluster, a
// pid reused by another process, and a fresh directory without an owner
// (being created right now) stay.
func TestRemoveStaleKeepsLiveClusters(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	now := time.Now()
	dead := deadPID(t)
	dir := func(name, owner string, age time.Duration) string {
		d := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Join(d, "data"), 0o700); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			if err := os.WriteFile(filepath.Join(d, ownerFile), []byte(owner), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chtimes(d, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
		return d
	}
	self := os.Getpid()
	live := dir("pgtest-live", strconv.Itoa(self)+" "+startTime(self), time.Hour)
	killed := dir("pgtest-killed", strconv.Itoa(dead)+" 1", time.Minute)
	reused := dir("pgtest-reused", strconv.Itoa(self)+" 1", time.Minute)
	creating := dir("pgtest-creating", "", time.Second)
	old := dir("pgtest-old", "", time.Hour)
	oldRunning := dir("pgtest-old-running", "", time.Hour)
	if err := os.WriteFile(filepath.Join(oldRunning, "data", "postmaster.pid"), []byte(strconv.Itoa(self)+"\n"+oldRunning+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := dir("not-a-cluster", "", time.Hour)

	removed, err := removeStale(tmp, now)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{killed, old}
	if startTime(self) != "" { // /proc tells start times: a reused pid is not the owner
		want = append(want, reused)
	}
	slices.Sort(want)
	slices.Sort(removed)
	if !slices.Equal(removed, want) {
		t.Errorf("removed %q, want %q", removed, want)
	}
	for _, d := range []string{live, creating, oldRunning, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(d), err)
		}
	}
}

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run a child process: %v", err)
	}
	return cmd.Process.Pid
}
