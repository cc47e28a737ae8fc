//go:build long

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// stormProcess is a child process of the storm: the service or the bank.
type stormProcess struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// mustStart is startProcess for the test's goroutine: it fails the test
// when the process does not come up.
func mustStart(t *testing.T, logs, dbURL, ready, bin string, args ...string) *stormProcess {
	t.Helper()
	p, err := startProcess(t, logs, dbURL, ready, bin, args...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// startProcess starts bin with args and DATABASE_URL=dbURL, its output
// appended to logs, and waits until it answers HTTP GET ready on the
// address of its -addr flag (with any status). At the end of the test it
// is stopped with SIGTERM, and its log shown when the test failed. It
// reports failures as errors, so the killer's goroutine may call it.
func startProcess(t *testing.T, logs, dbURL, ready, bin string, args ...string) (*stormProcess, error) {
	addr := ""
	for i := range args[:len(args)-1] {
		if args[i] == "-addr" {
			addr = args[i+1]
		}
	}
	out, err := os.OpenFile(logs, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		_ = out.Close()
		return nil, err
	}
	p := &stormProcess{cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		_ = out.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-p.done
		if t.Failed() {
			b, _ := os.ReadFile(logs)
			t.Logf("the children's output (last 8 KB):\n%s", b[max(0, len(b)-8192):])
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		resp, err := http.Get("http://" + addr + ready)
		if err == nil {
			_ = resp.Body.Close()
			return p, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s does not answer on %s: %w", bin, addr, err)
		case <-p.done:
			return nil, fmt.Errorf("%s exited before answering", bin)
		case <-tick.C:
		}
	}
}

// kill ends the process with SIGKILL and waits until it is gone.
func (p *stormProcess) kill() error {
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		return err
	}
	<-p.done
	return nil
}

// setBankBehaviour tells the bank how to answer its next charges (PUT
// /behaviour).
func setBankBehaviour(t *testing.T, bankAddr, behaviour string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, "http://"+bankAddr+"/behaviour", bytes.NewReader([]byte(behaviour)))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			err = errors.New(resp.Status)
		}
	}
	if err != nil {
		t.Fatalf("PUT /behaviour %s: %v", behaviour, err)
	}
}
