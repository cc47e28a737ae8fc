package idembroker_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/runtime/idembroker/rabbitmq"
)

// Under a memory alarm, which stops the broker reading every connection
// that publishes, a delivery that must be dead-lettered neither stalls the
// consumer nor keeps Run from returning: the dead letters' own connection
// is blocked, the delivery is requeued and reported, each time it comes
// back, and the good message after it is handled and acknowledged on the
// consuming connection, which only acknowledges. Once the alarm clears, the next Run dead-letters the
// requeued delivery. (Before, the dead letter went out on the consuming
// connection: Run waited for its confirm until the alarm cleared, handled
// nothing and did not return when cancelled.)
func TestRabbitMQDeadLetterUnderAnAlarmNeitherStallsNorBlocksStop(t *testing.T) {
	ctl := newRabbitMQCtl(rabbitMQURL(t))
	if why := ctl.cannotTouch(t); why != "" {
		t.Skip(why)
	}
	f := newDLFixture(t, nil)
	exchange, dlq := f.name("dlx"), f.name("dlq")
	f.declareDeadLetters(t, exchange, dlq)
	const bad = "bad\x01alarm"
	f.publish(t, bad, nil)
	f.publish(t, "good", nil)

	ctl.memoryAlarm(t)
	c := newDLConsumer(t)
	reports := make(chan error, 100)
	stop := f.run(t, c, &rabbitmq.DeadLetter{Exchange: exchange}, reports)
	// Cleanups run last first: the alarm clears before stop waits for a
	// Run that a failure left waiting for it.
	t.Cleanup(func() { ctl.clearAlarm(t) })
	// The delivery comes back after each requeue: twice blocked shows that
	// the second attempt, on the blocked connection, does not wait either.
	var seen []string
	for good, blocked := c.handled("good"), 0; good != nil || blocked < 2; {
		select {
		case <-good:
			good = nil
		case err := <-reports:
			seen = append(seen, err.Error())
			if strings.Contains(err.Error(), "requeueing it") && strings.Contains(err.Error(), "blocks publishing") {
				blocked++
			}
		case <-time.After(waitLimit):
			t.Fatalf("under the alarm, within %v: good handled %v, the blocked dead letter reported %d times (reports: %q)",
				waitLimit, good == nil, blocked, seen)
		}
	}
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(waitLimit):
		t.Fatalf("Run did not return within %v of its cancellation under the alarm", waitLimit)
	}
	ctl.clearAlarm(t)

	dead := f.consume(t, dlq)
	reports = make(chan error, 100)
	stop = f.run(t, newDLConsumer(t), &rabbitmq.DeadLetter{Exchange: exchange}, reports)
	// Reported once the broker confirmed the dead letter, before the ack,
	// which goes out before Run closes its connection.
	for done := false; !done; {
		select {
		case err := <-reports:
			done = strings.Contains(err.Error(), "dead-lettered to")
		case <-time.After(waitLimit):
			t.Fatalf("the requeued delivery was not dead-lettered within %v of the alarm's end", waitLimit)
		}
	}
	stop()
	// The first publish, left unconfirmed under the alarm, may have been
	// routed too: a dead letter arrives at least once.
	if d := receive(t, dead, "dead letter after the alarm"); d.MessageId != bad || d.Headers[rabbitmq.ReasonHeader] == nil {
		t.Errorf("dead letter %q with headers %v, want %q with its reason", d.MessageId, d.Headers, bad)
	}
	if n := f.messages(t, f.queue); n != 0 {
		t.Errorf("%s holds %d messages after the alarm cleared and Run ran again, want 0", f.queue, n)
	}
	if runs := c.runs(); len(runs) != 1 || runs["good"] != 1 {
		t.Errorf("handler runs %v under the alarm, want good's only", runs)
	}
}

// memoryAlarm sets the node's memory high watermark to 1 byte, which
// raises a memory alarm, and waits until the node reports it; the
// watermark the node had is set again when t ends, if clearAlarm did not.
func (c *rabbitMQCtl) memoryAlarm(t *testing.T) {
	t.Helper()
	status := c.status(t)
	var restore []string
	for kind, value := range status.Setting {
		switch kind {
		case "relative":
			restore = []string{"set_vm_memory_high_watermark", fmt.Sprint(value)}
		case "absolute":
			restore = []string{"set_vm_memory_high_watermark", "absolute", fmt.Sprint(value)}
		}
	}
	if restore == nil {
		t.Skipf("rabbitmqctl status gives no memory high watermark setting to restore: %v", status.Setting)
	}
	c.restore = restore
	t.Cleanup(func() { c.clearAlarm(t) })
	if _, err := c.run(t, "-q", "set_vm_memory_high_watermark", "absolute", "1"); err != nil {
		t.Fatal(err)
	}
	c.waitForAlarms(t, true)
}

// clearAlarm sets the memory high watermark memoryAlarm found again and
// waits until the node reports no alarm.
func (c *rabbitMQCtl) clearAlarm(t *testing.T) {
	t.Helper()
	if c.restore == nil {
		return
	}
	if _, err := c.run(t, append([]string{"-q"}, c.restore...)...); err != nil {
		t.Fatal(err)
	}
	c.restore = nil
	c.waitForAlarms(t, false)
}

// waitForAlarms asks the node for its alarms until it reports some (on)
// or none (!on), failing t after waitLimit.
func (c *rabbitMQCtl) waitForAlarms(t *testing.T, on bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		alarms := c.status(t).Alarms
		if (len(alarms) > 0) == on {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the node's alarms are %v after %v, want some: %v", alarms, waitLimit, on)
		}
	}
}

// nodeStatus is what the alarm tests read of rabbitmqctl status.
type nodeStatus struct {
	Alarms  []json.RawMessage `json:"alarms"`
	Setting map[string]any    `json:"vm_memory_high_watermark_setting"`
}

// status returns the node's status.
func (c *rabbitMQCtl) status(t *testing.T) nodeStatus {
	t.Helper()
	out, err := c.run(t, "-q", "status", "--formatter", "json")
	if err != nil {
		t.Fatal(err)
	}
	var s nodeStatus
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("rabbitmqctl status: %v", err)
	}
	return s
}
