package pgcluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// dirPrefix starts the name of each throwaway cluster's directory in the
// temporary directory. It is the name the clusters had when they were only
// the tests' (package pgtest), so the leftovers of those runs are found too.
const dirPrefix = "pgtest-"

// clusterPattern matches the directories of throwaway clusters in the
// temporary directory.
const clusterPattern = dirPrefix + "*"

// ownerFile is the file in a cluster's directory that names the process
// that started it: its pid and, where /proc tells it, its start time, so a
// reused pid is not mistaken for the owner.
const ownerFile = "owner"

// staleAge is how old a cluster directory without an owner file must be
// before it is taken for garbage: younger, it may be one that another
// process is creating right now, or one an earlier version left.
const staleAge = 10 * time.Minute

// writeOwner records the current process as the owner of dir.
func writeOwner(dir string) error {
	pid := os.Getpid()
	return os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(pid)+" "+startTime(pid)+"\n"), 0o644)
}

// removeStale removes the throwaway clusters under tmp that a process left
// behind when it died without stopping them (a test binary killed by a
// signal or by go test's -timeout): each directory whose owner process is
// gone, and each old directory without an owner whose postgres is not
// running. On Linux their postgres died with the owner (it runs with a
// parent-death signal), so only files remain; elsewhere it shuts itself
// down once it finds its lock file gone. It returns the directories it
// removed.
func removeStale(tmp string, now time.Time) ([]string, error) {
	dirs, err := filepath.Glob(filepath.Join(tmp, clusterPattern))
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, dir := range dirs {
		if !stale(dir, now) {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, dir)
	}
	return removed, errors.Join(errs...)
}

// stale reports whether dir is a cluster directory nobody uses any more.
func stale(dir string, now time.Time) bool {
	info, err := os.Lstat(dir)
	if err != nil || !info.IsDir() {
		return false
	}
	if owner, err := os.ReadFile(filepath.Join(dir, ownerFile)); err == nil {
		fields := strings.Fields(string(owner))
		if len(fields) == 0 {
			return false
		}
		pid, err := strconv.Atoi(fields[0])
		if err != nil {
			return false
		}
		recorded := ""
		if len(fields) > 1 {
			recorded = fields[1]
		}
		return !alive(pid, recorded)
	}
	if now.Sub(info.ModTime()) < staleAge {
		return false
	}
	pid, err := postmasterPID(filepath.Join(dir, "data"))
	return err != nil || !alive(pid, "")
}

// postmasterPID reads the pid of a data directory's postgres from its
// postmaster.pid file.
func postmasterPID(data string) (int, error) {
	b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		return 0, fmt.Errorf("pgcluster: postmaster.pid: %w", err)
	}
	return pid, nil
}

// alive reports whether process pid exists and, when started is not empty
// and /proc tells start times, whether it is the process that started then.
func alive(pid int, started string) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if started == "" {
		return true
	}
	now := startTime(pid)
	return now == "" || now == started
}

// startTime returns a process's start time in clock ticks since boot, from
// field 22 of /proc/PID/stat, or "" where there is no /proc.
func startTime(pid int) string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return ""
	}
	// The command name (field 2) is in parentheses and may hold spaces;
	// the fields after its closing parenthesis start at field 3.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 20 {
		return ""
	}
	return fields[19]
}
