package pgcluster

import "syscall"

// postgresProcAttr returns the attributes postgres starts with: cred's
// user (nil: this process's), a process group of its own, so that a
// terminal's interrupt reaches the test and not the server, and SIGQUIT
// (PostgreSQL's immediate shutdown) when the process that started it
// dies, so that a killed test leaves no server running.
func postgresProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
}
