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
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// readyLine begins what postgres logs once it accepts connections: "…
// connections" on a primary, "… read-only connections" on a standby.
const readyLine = "database system is ready to accept "

// Cluster is a throwaway PostgreSQL cluster in a temporary directory. It
// listens on a Unix socket inside that directory, so it never competes
// for a TCP port unless Options name one, and it is stopped when the
// process that started it dies; its directory is then removed by the next
// Start.
type Cluster struct {
	dir    string
	url    string
	port   int // names the Unix socket, and the TCP port when there is one
	binDir string
	cred   *syscall.Credential
	cmd    *exec.Cmd
	done   chan struct{} // closed when the postgres process has exited
	log    *syncBuffer
}

// Options are what a cluster has beyond the defaults of Start.
type Options struct {
	// Port, when not 0, is a TCP port on 127.0.0.1 postgres listens on
	// besides its Unix socket (whose name then carries the port too).
	Port int
	// Settings are server parameters, set on postgres's command line after
	// the defaults, which they override (fsync, synchronous_commit and
	// full_page_writes are off by default: a throwaway cluster is for
	// tests, and its data need not survive the machine).
	Settings map[string]string
}

// Start creates a cluster with initdb and starts postgres on it. When
// the process runs as root, both run as the unprivileged user "postgres",
// because initdb refuses to run as root. The caller must call Stop.
func Start(ctx context.Context) (*Cluster, error) {
	return StartWith(ctx, Options{})
}

// StartWith is Start with Options.
func StartWith(ctx context.Context, o Options) (*Cluster, error) {
	c, err := newCluster()
	if err != nil {
		return nil, err
	}
	initdb := c.command(ctx, "initdb",
		"-D", c.data(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		c.Stop()
		return nil, fmt.Errorf("pgcluster: initdb failed: %w\n%s", err, out)
	}
	if err := c.start(ctx, o); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// newCluster finds the binaries and the user to run them as, and creates
// the cluster's directory, owned by that user, with an empty data
// directory in it.
func newCluster() (*Cluster, error) {
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
	c := &Cluster{dir: dir, binDir: binDir, cred: cred, done: make(chan struct{}), log: &syncBuffer{}}
	if err := c.prepareDir(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return c, nil
}

// prepareDir records the owner of the cluster's directory and creates the
// data directory, both owned by the user postgres runs as.
func (c *Cluster) prepareDir() error {
	if err := writeOwner(c.dir); err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	if err := os.Mkdir(c.data(), 0o700); err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	if c.cred != nil {
		for _, d := range []string{c.dir, c.data()} {
			if err := os.Chown(d, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
				return fmt.Errorf("pgcluster: %w", err)
			}
		}
	}
	return nil
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

// Log returns what postgres has logged so far, for a failing test.
func (c *Cluster) Log() string { return c.log.String() }

// data is the cluster's data directory.
func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }

// command is the binary name of the cluster's installation, run as the
// cluster's user.
func (c *Cluster) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(c.binDir, name), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	return cmd
}

// start starts postgres on the data directory and waits until it accepts
// connections (read-only ones, for a standby).
func (c *Cluster) start(ctx context.Context, o Options) error {
	port := 5432 // without o.Port, only names the socket file
	listen := ""
	if o.Port != 0 {
		port, listen = o.Port, "127.0.0.1"
	}
	args := []string{"-D", c.data(), "-p", strconv.Itoa(port), "-k", c.dir,
		"-c", "listen_addresses=" + listen,
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=300"}
	names := make([]string, 0, len(o.Settings))
	for name := range o.Settings {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		args = append(args, "-c", name+"="+o.Settings[name])
	}
	c.cmd = exec.Command(filepath.Join(c.binDir, "postgres"), args...)
	c.cmd.SysProcAttr = postgresProcAttr(c.cred)
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
	c.port = port
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
