package main

import (
	"strings"
	"testing"
)

// messagesSeed is a webhook dead-lettered after its 3 attempts.
const messagesSeed = `
INSERT INTO support.idempotency_inbox (source, consumer, message_id, operation_id, state, fingerprint, attempts, max_attempts,
    last_error, body, received_at, updated_at) VALUES
 ('bank', 'receiveBankSettlement', 'msg_2Kx', '88888888-8888-8888-8888-888888888888', 'dead', '\x01', 3, 3,
  'the ledger has no payment pay_9', '{"payment_id":"pay_9"}', '2026-11-30 12:00:00+00', '2026-11-30 12:05:00+00')`

// TestOpsMessagesListsAndRetriesADeadWebhook: ops messages lists the dead
// webhook; ops retry-message needs a reason and an actor, writes one audit
// row and moves it to retry, once.
func TestOpsMessagesListsAndRetriesADeadWebhook(t *testing.T) {
	pool := opsDB(t)
	if _, err := pool.Exec(t.Context(), messagesSeed); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := ops("messages", "--schema", "support")
	if code != 0 || !strings.Contains(out, "88888888-8888-8888-8888-888888888888  receiveBankSettlement  bank    msg_2Kx     dead   3/3") ||
		!strings.Contains(out, "the ledger has no payment pay_9") {
		t.Fatalf("ops messages: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, _ := ops("retry-message", "88888888-8888-8888-8888-888888888888", "--schema", "support", "--actor", "ana"); code != exitUnusable {
		t.Errorf("retry-message without a reason: exit %d, want %d", code, exitUnusable)
	}
	code, out, errOut = ops("retry-message", "88888888-8888-8888-8888-888888888888", "--schema", "support",
		"--actor", "ana", "--reason", "the payment was backfilled")
	if code != 0 || !strings.Contains(out, "message bank/receiveBankSettlement/msg_2Kx (88888888-8888-8888-8888-888888888888): dead -> retry") {
		t.Fatalf("ops retry-message: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, _ := ops("retry-message", "88888888-8888-8888-8888-888888888888", "--schema", "support", "--actor", "ana", "--reason", "again"); code == 0 {
		t.Error("a second retry-message of a message already in retry succeeded")
	}
	var audits int
	var state string
	if err := pool.QueryRow(t.Context(), `SELECT (SELECT count(*) FROM support.idempotency_inbox_audit),
		(SELECT state FROM support.idempotency_inbox)`).Scan(&audits, &state); err != nil {
		t.Fatal(err)
	}
	if audits != 1 || state != "retry" {
		t.Errorf("audit rows %d, state %s; want 1 and retry", audits, state)
	}
}
