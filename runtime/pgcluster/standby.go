package pgcluster

import (
	"context"
	"fmt"
	"strconv"
	"syscall"
)

// StartStandby makes a streaming replica of c with pg_basebackup -R and
// starts it with o: a hot standby, read-only until Promote, that streams
// from c over c's Unix socket. For synchronous replication, give c
// synchronous_standby_names (and synchronous_commit) in its Options; the
// standby must not name any itself, or its commits would wait for a
// standby of its own once promoted. The caller must call Stop on both.
func (c *Cluster) StartStandby(ctx context.Context, o Options) (*Cluster, error) {
	if err := needPrograms(c.binDir, "pg_basebackup", "pg_ctl"); err != nil {
		return nil, err
	}
	s, err := newCluster()
	if err != nil {
		return nil, err
	}
	backup := s.command(ctx, "pg_basebackup",
		"-h", c.dir, "-p", strconv.Itoa(c.port), "-U", "postgres", "-D", s.data(),
		"-R", "-X", "stream", "-c", "fast", "--no-sync")
	if out, err := backup.CombinedOutput(); err != nil {
		s.Stop()
		return nil, fmt.Errorf("pgcluster: pg_basebackup failed: %w\n%s", err, out)
	}
	if err := s.start(ctx, o); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// Crash stops postgres at once, as a power cut or `pg_ctl stop -m
// immediate` does (SIGQUIT: no checkpoint, the sessions cut off), and
// waits until it has exited. Its directory stays until Stop.
func (c *Cluster) Crash() {
	_ = c.cmd.Process.Signal(syscall.SIGQUIT)
	<-c.done
}

// Promote ends a standby's recovery with `pg_ctl promote` and waits until
// it accepts writes.
func (c *Cluster) Promote(ctx context.Context) error {
	const waitSeconds = 60
	promote := c.command(ctx, "pg_ctl", "promote", "-D", c.data(), "-w", "-t", strconv.Itoa(waitSeconds))
	if out, err := promote.CombinedOutput(); err != nil {
		return fmt.Errorf("pgcluster: pg_ctl promote failed: %w\n%s", err, out)
	}
	return nil
}
