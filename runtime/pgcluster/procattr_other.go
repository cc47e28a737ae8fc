//go:build unix && !linux

package pgcluster

import "syscall"

// postgresProcAttr returns the attributes postgres starts with: cred's
// user (nil: this process's) and a process group of its own, so that a
// terminal's interrupt reaches the test and not the server. Only Linux
// can signal a child when its parent dies; elsewhere a server whose test
// was killed runs on until the next cluster of the same machine removes its
// directory as stale (removeStale), and PostgreSQL, which checks its lock
// file every minute, then shuts itself down.
func postgresProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Setpgid: true}
}
