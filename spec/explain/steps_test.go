package explain

import (
	"strings"
	"testing"

	"github.com/idemgen/idemgen/spec"
)

// phasedSpec is a three-step payment and a phased operation with a step
// of each other policy, an external step without its settings and no
// explicit lease.
const phasedSpec = `openapi: 3.0.3
info: {title: explain, version: "1"}
components:
  schemas:
    PaymentRecord: {type: object}
    Charge: {type: object}
paths:
  /payments:
    post:
      operationId: createPayment
      responses:
        "201": {description: charged}
      x-idempotency:
        mode: phased
        lease: 2m
        concurrency: reject
        steps:
          - name: record_payment
            output: {$ref: '#/components/schemas/PaymentRecord'}
          - {name: charge_card, external: true, on-unknown: verify, timeout: 10s, output: {$ref: '#/components/schemas/Charge'}}
          - name: record_outcome
  /refunds:
    post:
      operationId: refund
      responses:
        "201": {description: refunded}
      x-idempotency:
        mode: phased
        steps:
          - {name: notify_bank, external: true, on-unknown: retry, timeout: 5s}
          - {name: reverse_charge, external: true, on-unknown: halt, timeout: 5s}
          - {name: ask_ledger, external: true}
          - {name: record_refund, output: {$ref: '#/components/schemas/Charge'}}
`

// TestBuildPhased checks what explain says of phased contracts: one line
// per step on what a crash, a time-out and an unknown outcome do there,
// the lease and the completer. Not generated, that is the as-written part
// below the reasons; generated, it is the contract's own items.
func TestBuildPhased(t *testing.T) {
	doc := loadDoc(t, "phased.yaml", phasedSpec)
	pay := doc.Operations[0]
	phased := spec.Diagnostic{Pos: spec.Position{File: "phased.yaml", Line: 14, Col: 15}, Severity: spec.SeverityError, Rule: "IDEM020", Message: "mode phased is not generated yet"}
	refused := Build(doc, Verdict{Errors: []spec.Diagnostic{phased}, Operations: map[*spec.Operation][]spec.Diagnostic{pay: {phased}}})
	generated := Build(doc, Verdict{})
	for _, s := range refused.Sections {
		if len(s.Items) != 0 || len(s.AsWritten) == 0 || !strings.Contains(s.AsWrittenIntro, "no generated code keeps any of it") {
			t.Errorf("%s: not generated, want the contract as written and no items: %+v", s.Title, s)
		}
	}
	for _, s := range generated.Sections {
		if len(s.AsWritten) != 0 || item(t, s.Items, "Mode").Text != phasedSentence {
			t.Errorf("%s: generated, want the phased mode among the items: %+v", s.Title, s)
		}
	}

	tests := []struct {
		items []Item
		label string
		want  []string
	}{
		{refused.Sections[0].AsWritten, "Lease", []string{"holds the operation for 2m under a fencing token", "a duplicate that arrives meanwhile gets 409 with `Retry-After` at once", "a retry takes the operation over with a new token"}},
		{refused.Sections[1].AsWritten, "Lease", []string{"holds the operation for 30s (the built-in default)", "waits up to 5s and then gets 409"}},
		{refused.Sections[0].AsWritten, "Completer", []string{"the service's completer takes it over"}},
		{generated.Sections[0].Items, "Steps", []string{"In order:"}},
	}
	for _, tt := range tests {
		got := item(t, tt.items, tt.label).Text
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q\ndoes not contain %q", tt.label, got, w)
			}
		}
	}

	steps := map[string][]string{
		"createPayment": item(t, refused.Sections[0].AsWritten, "Steps").List,
		"refund":        item(t, refused.Sections[1].AsWritten, "Steps").List,
	}
	want := map[string][]string{
		"createPayment": {
			"`record_payment`: runs in its own transaction and commits its recovery point with its output `PaymentRecord`, while the attempt's token holds. A crash or time-out before the commit leaves nothing of it, and a retry or the completer runs it again; its outcome is never unknown.",
			"`charge_card`: once the recovery point before it has committed, calls outside the database with a step key derived from the operation and the step's name, the same on every attempt, which the provider receives, and gives the call at most 10s; its result (output `Charge`) goes to the next step, whose commit records it. A crash or time-out during the call, or before the next step commits, leaves its outcome unknown: a retry or the completer first asks the provider whether the call with the step key happened (verify)",
			"`record_outcome`: runs in its own transaction, records the operation's answer (its response) and completes the operation in one commit",
		},
		"refund": {
			"`notify_bank`: once the recovery point before it has committed, calls outside the database", "`reverse_charge`: once", "`ask_ledger`: once the recovery point before it has committed, calls outside the database with a step key derived from the operation and the step's name, the same on every attempt, which the provider receives; its result goes to the next step",
			"`record_refund`: runs in its own transaction, records the operation's answer (its response) and its output `Charge` and completes",
		},
	}
	unknown := map[string][]string{
		"refund": {
			"a retry or the completer calls again with the same step key (retry)",
			"the operation stops in `requires_recovery` (halt): its retries get 409 `operation-requires-recovery`",
			"its on-unknown is not set",
			"its outcome is never unknown",
		},
	}
	for op, lines := range steps {
		if len(lines) != len(want[op]) {
			t.Fatalf("%s: steps %q, want %d", op, lines, len(want[op]))
		}
		for i, w := range want[op] {
			if !strings.HasPrefix(lines[i], w) {
				t.Errorf("%s step %d = %q\nwant prefix %q", op, i, lines[i], w)
			}
		}
		for i, w := range unknown[op] {
			if !strings.Contains(lines[i], w) {
				t.Errorf("%s step %d = %q\ndoes not contain %q", op, i, lines[i], w)
			}
		}
	}

	checkRefusedRender(t, doc, Verdict{Errors: []spec.Diagnostic{phased}, Operations: map[*spec.Operation][]spec.Diagnostic{pay: {phased}}},
		"so this page promises none of its guarantees.\n\nWhat the phased contract asks for, as written, for review: no generated code keeps any of it yet.\n\n- **Mode.** Phased: ",
		"\n- **Steps.** In order:\n  - `record_payment`: runs",
	)
}
