package pgcluster

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// readyLine is what postgres logs once it accepts connections.
const readyLine = "database system is ready to accept connections"

// Cluster is a throwaway PostgreSQL cluster in a temporary directory. It
// listens only on a Unix socket inside that directory, so it never competes
// for a TCP port, and it is stopped when the process that started it dies;
// its directory is then removed by the next Start.
type Cluster struct {
	dir  string
	url  string
	cmd  *exec.Cmd
	done chan struct{} // closed when the postgres process has exited
	log  *syncBuffer
}

// Start creates a cluster with initdb and starts postgres on it. When
// the process runs as root, both run as the unprivileged user "postgres",
// because initdb refuses to run as root. The caller must call Stop.
func Start(ctx context.Context) (*Cluster, error) {
	binDir, err := findBinDir()
	if err != nil {
		return nil, err
	}
	cred, err := unprivilegedCredential()
	if err != nil {
		return nil, err
	}
	// Clusters of earlier runs that were killed before they could stop
	// theirs would otherwise stay in the temporary directory for good.
	if _, err := removeStale(os.TempDir(), time.Now()); err != nil {
		return nil, fmt.Errorf("pgcluster: removing clusters left by crashed runs: %w", err)
	}
	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		return nil, fmt.Errorf("pgcluster: %w", err)
	}
	if err := writeOwner(dir); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("pgcluster: %w", err)
	}
	c := &Cluster{dir: dir, done: make(chan struct{}), log: &syncBuffer{}}
	if err := c.start(ctx, binDir, cred); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// URL is a connection string for the cluster's "postgres" database.
func (c *Cluster) URL() string { return c.url }

// Stop shuts postgres down fast and removes the cluster's directory.
func (c *Cluster) Stop() error {
	if c.cmd != nil && c.cmd.Process != nil {
		_ = c.cmd.Process.Signal(syscall.SIGINT)
		<-c.done
	}
	return os.RemoveAll(c.dir)
}

func (c *Cluster) start(ctx context.Context, binDir string, cred *syscall.Credential) error {
	data := filepath.Join(c.dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	if cred != nil {
		if err := os.Chown(c.dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return fmt.Errorf("pgcluster: %w", err)
		}
		if err := os.Chown(data, int(cred.Uid), int(cred.Gid)); err != nil {
			return fmt.Errorf("pgcluster: %w", err)
		}
	}
	initdb := exec.CommandContext(ctx, filepath.Join(binDir, "initdb"),
		"-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("pgcluster: initdb failed: %w\n%s", err, out)
	}

	const port = 5432 // only names the socket file; no TCP listener
	c.cmd = exec.Command(filepath.Join(binDir, "postgres"),
		"-D", data, "-p", strconv.Itoa(port), "-k", c.dir,
		"-c", "listen_addresses=",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=300")
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
	stderr, err := c.cmd.StderrPipe()
	if err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	if err := c.cmd.Start(); err != nil {
		return fmt.Errorf("pgcluster: starting postgres: %w", err)
	}
	ready := make(chan struct{})
	go c.watch(stderr, ready)

	select {
	case <-ready:
	case <-c.done:
		return fmt.Errorf("pgcluster: postgres exited during start-up:\n%s", c.log.String())
	case <-ctx.Done():
		return fmt.Errorf("pgcluster: waiting for postgres: %w\n%s", ctx.Err(), c.log.String())
	}
	c.url = fmt.Sprintf("host=%s port=%d user=postgres dbname=postgres sslmode=disable", c.dir, port)
	return nil
}

// watch copies postgres's log into c.log, closes ready at the first line
// saying it accepts connections, and closes c.done when the process exits.
func (c *Cluster) watch(stderr io.Reader, ready chan<- struct{}) {
	sc := bufio.NewScanner(stderr)
	signalled := false
	for sc.Scan() {
		line := sc.Text()
		c.log.WriteLine(line)
		if !signalled && strings.Contains(line, readyLine) {
			close(ready)
			signalled = true
		}
	}
	_ = c.cmd.Wait()
	close(c.done)
}

// unprivilegedCredential returns nil when the process may run initdb itself,
// and the credentials of the "postgres" user when it runs as root.
func unprivilegedCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, errors.New("pgcluster: running as root, and initdb refuses to run as root: create a user named postgres " +
			"(installing PostgreSQL's server package does) or set DATABASE_URL")
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// syncBuffer collects log lines from one goroutine for reading in another.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) WriteLine(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.WriteString(s)
	b.buf.WriteByte('\n')
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
