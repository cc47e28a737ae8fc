package outbox_test

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// worker is a child worker process.
type worker struct {
	cmd   *exec.Cmd
	lines chan string // its stdout, line by line
}

// startWorker starts this test binary as a worker process of mode (crash
// or work) on the database at cs, with the given lease, and waits for it
// to say it runs.
func startWorker(t *testing.T, cs, mode, id string, lease time.Duration) *worker {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childModeEnv+"="+mode, childConnEnv+"="+cs, childLeaseEnv+"="+lease.String(), childIDEnv+"="+id)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &worker{cmd: cmd, lines: make(chan string, 16)}
	go w.read(out)
	t.Cleanup(w.kill)
	if line := w.next(t); line != "running" {
		t.Fatalf("worker %s said %q, want running", id, line)
	}
	return w
}

func (w *worker) read(r io.Reader) {
	s := bufio.NewScanner(r)
	for s.Scan() {
		w.lines <- s.Text()
	}
	close(w.lines)
}

// next returns the worker's next line of output.
func (w *worker) next(t *testing.T) string {
	t.Helper()
	select {
	case line, ok := <-w.lines:
		if !ok {
			t.Fatal("the worker exited")
		}
		return line
	case <-time.After(30 * time.Second):
		t.Fatal("the worker said nothing for 30s")
		return ""
	}
}

// kill sends SIGKILL and reaps the process; killing a dead one is a no-op.
func (w *worker) kill() {
	_ = w.cmd.Process.Kill()
	_ = w.cmd.Wait()
}

// calledKey reads a crash-mode worker's "called <key>" line.
func (w *worker) calledKey(t *testing.T) string {
	t.Helper()
	line := w.next(t)
	key, ok := strings.CutPrefix(line, "called ")
	if !ok {
		t.Fatalf("the worker said %q, want called <key>", line)
	}
	return key
}
