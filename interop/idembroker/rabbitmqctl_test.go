package idembroker_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
)

// rabbitMQCtl restarts the RabbitMQ server the tests use with rabbitmqctl
// (stop_app, start_app: the node's Erlang VM stays up, the broker inside
// it stops, closing every connection, and starts again from its durable
// queues and persistent messages on disk), or raises a memory alarm on it
// (rabbitmq_alarm_test.go). rabbitmqctl reaches the node
// RABBITMQ_NODENAME names (its default otherwise) with the Erlang cookie
// of the user running the test.
type rabbitMQCtl struct {
	port int // the AMQP port of RABBITMQ_URL

	once     sync.Once
	unusable string // why rabbitmqctl cannot restart that server, "" if it can

	// restore is the rabbitmqctl command that sets the memory high
	// watermark memoryAlarm replaced; nil without an alarm to clear.
	restore []string
}

func newRabbitMQCtl(rawURL string) *rabbitMQCtl {
	c := &rabbitMQCtl{port: 5672}
	if u, err := url.Parse(rawURL); err == nil && u.Port() != "" {
		c.port, _ = strconv.Atoi(u.Port())
	}
	return c
}

// connectionName names the connections of this process, so that the
// server's other clients are told apart from them.
func connectionName() string { return fmt.Sprintf("idembroker-test-%d", os.Getpid()) }

// cannotRestart says why the server may not be restarted now, "" if it
// may: the test runs without the long tag, or cannotTouch says why not.
func (c *rabbitMQCtl) cannotRestart(t testing.TB) string {
	t.Helper()
	if rabbitMQRestartSkipped != "" {
		return rabbitMQRestartSkipped
	}
	return c.cannotTouch(t)
}

// cannotTouch says why the server may not be restarted or alarmed now, ""
// if it may: rabbitmqctl is missing or reaches no node listening on
// RABBITMQ_URL's port, or the server has connections of other clients
// than this process, which a restart would cut and an alarm block.
func (c *rabbitMQCtl) cannotTouch(t testing.TB) string {
	t.Helper()
	c.once.Do(func() { c.unusable = c.check(t) })
	if c.unusable != "" {
		return c.unusable
	}
	out, err := c.run(t, "-q", "list_connections", "name", "client_properties", "--formatter", "json")
	if err != nil {
		return err.Error()
	}
	var conns []struct {
		Name  string  `json:"name"`
		Props [][]any `json:"client_properties"`
	}
	if err := json.Unmarshal(out, &conns); err != nil {
		return fmt.Sprintf("rabbitmqctl list_connections: %v", err)
	}
	var others []string
	for _, cn := range conns {
		ours := false
		for _, p := range cn.Props {
			if len(p) == 3 && p[0] == "connection_name" && p[2] == connectionName() {
				ours = true
			}
		}
		if !ours {
			others = append(others, cn.Name)
		}
	}
	if len(others) > 0 {
		return fmt.Sprintf("the server has %d connections of other clients (%v): a restart would cut them, an alarm block them", len(others), others)
	}
	return ""
}

// check says why rabbitmqctl cannot restart the server at RABBITMQ_URL,
// "" if it can.
func (c *rabbitMQCtl) check(t testing.TB) string {
	if _, err := exec.LookPath("rabbitmqctl"); err != nil {
		return "rabbitmqctl is not on PATH, the harness cannot restart the server"
	}
	out, err := c.run(t, "-q", "status", "--formatter", "json")
	if err != nil {
		return err.Error() + " (set RABBITMQ_NODENAME to the server's node; the Erlang cookie must be readable)"
	}
	var status struct {
		Listeners []struct {
			Node     string `json:"node"`
			Port     int    `json:"port"`
			Protocol string `json:"protocol"`
		} `json:"listeners"`
	}
	if err := json.Unmarshal(out, &status); err != nil {
		return fmt.Sprintf("rabbitmqctl status: %v", err)
	}
	for _, l := range status.Listeners {
		if l.Protocol == "amqp" && l.Port == c.port {
			return ""
		}
	}
	return fmt.Sprintf("the node rabbitmqctl reaches has no AMQP listener on port %d of RABBITMQ_URL "+
		"(set RABBITMQ_NODENAME to the server's node): %+v", c.port, status.Listeners)
}

// restart stops the broker application of the node and starts it again.
func (c *rabbitMQCtl) restart(t testing.TB) {
	t.Helper()
	for _, cmd := range []string{"stop_app", "start_app"} {
		if _, err := c.run(t, "-q", cmd); err != nil {
			t.Fatal(err)
		}
	}
}

// run runs rabbitmqctl with args and returns its standard output. It
// runs in cleanups too, after t's context ended: the alarm test clears
// the alarm there.
func (c *rabbitMQCtl) run(t testing.TB, args ...string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command("rabbitmqctl", args...)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		return nil, fmt.Errorf("rabbitmqctl %v: %w: %s", args, err, stderr)
	}
	return out, nil
}
