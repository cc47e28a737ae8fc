package diff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// stepsSpec is a spec with one operation whose x-idempotency block is
// BLOCK.
const stepsSpec = `openapi: 3.0.3
info: {title: steps, version: "1"}
paths:
  /payments:
    post:
      operationId: createPayment
      responses: {"201": {description: ok}}
      x-idempotency:
BLOCK`

// cmpEmpty makes a nil and an empty list of findings equal.
var cmpEmpty = cmp.Comparer(func(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") })

// compareBlocks compares two x-idempotency blocks of one operation and
// returns each finding as "rule field" and its in-flight text by rule.
func compareBlocks(t *testing.T, base, head string) ([]string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	docs := make([]string, 2)
	for i, block := range []string{base, head} {
		docs[i] = filepath.Join(dir, []string{"base.yaml", "head.yaml"}[i])
		indented := "        " + strings.ReplaceAll(strings.TrimSpace(block), "\n", "\n        ") + "\n"
		if err := os.WriteFile(docs[i], []byte(strings.Replace(stepsSpec, "BLOCK", indented, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	inFlight := map[string]string{}
	for _, f := range Compare(load(t, docs[0]), load(t, docs[1])) {
		got = append(got, f.Rule+" "+f.Field)
		inFlight[f.Rule] = f.InFlight
	}
	return got, inFlight
}

func TestCompareSteps(t *testing.T) {
	const payment = `mode: phased
lease: 30s
steps:
  - {name: record_payment}
  - {name: charge_card, external: true, on-unknown: verify, timeout: 10s}
  - {name: record_outcome}`
	tests := []struct {
		name       string
		base, head string
		want       []string
		// inFlight maps a rule to part of its finding's in-flight text.
		inFlight map[string]string
	}{
		{name: "unchanged", base: payment, head: payment},
		{
			name: "steps are not compared unless both sides are phased",
			base: "lease: 30s", head: payment,
			want: []string{"mode-changed-to-phased x-idempotency.mode"},
		},
		{
			name: "a step added first is skipped by every operation with a recovery point",
			base: payment, head: strings.Replace(payment, "steps:\n", "steps:\n  - {name: check_fraud}\n", 1),
			want:     []string{"step-added x-idempotency.steps[check_fraud]"},
			inFlight: map[string]string{"step-added": "An operation in flight that committed a recovery point resumes after it, skips check_fraud"},
		},
		{
			name: "a local step renamed and made external",
			base: payment, head: strings.Replace(payment, "{name: record_payment}", "{name: authorize, external: true, on-unknown: retry, timeout: 5s}", 1),
			want:     []string{"step-renamed x-idempotency.steps[authorize]", "step-made-external x-idempotency.steps[authorize].external"},
			inFlight: map[string]string{"step-renamed": "whose last recovery point is record_payment cannot find where to resume"},
		},
		{
			name: "an external step renamed",
			base: payment, head: strings.Replace(payment, "name: charge_card", "name: charge_payment", 1),
			want:     []string{"step-renamed x-idempotency.steps[charge_payment]"},
			inFlight: map[string]string{"step-renamed": "The step key derives from the name: an operation in flight whose call as charge_card ended unknown calls again as charge_payment under a new key"},
		},
		{
			name: "an external step renamed and made local",
			base: payment, head: strings.Replace(payment, "{name: charge_card, external: true, on-unknown: verify, timeout: 10s}", "{name: record_charge}", 1),
			want:     []string{"step-renamed x-idempotency.steps[record_charge]", "step-made-local x-idempotency.steps[record_charge].external"},
			inFlight: map[string]string{"step-renamed": "An external step commits no recovery point"},
		},
		{
			name: "an external step removed",
			base: payment, head: strings.Replace(payment, "  - {name: charge_card, external: true, on-unknown: verify, timeout: 10s}\n", "", 1),
			want:     []string{"step-removed x-idempotency.steps[charge_card]"},
			inFlight: map[string]string{"step-removed": "never makes its call, and the step after it runs without its result"},
		},
		{
			name: "a step removed and another added are no rename at different indexes",
			base: payment, head: strings.Replace(strings.Replace(payment, "  - {name: record_payment}\n", "", 1), "  - {name: record_outcome}", "  - {name: notify}\n  - {name: record_outcome}", 1),
			want: []string{"step-added x-idempotency.steps[notify]", "step-removed x-idempotency.steps[record_payment]"},
		},
		{
			name: "a step moved within the order",
			base: payment, head: strings.Replace(strings.Replace(payment, "  - {name: record_payment}\n", "", 1), "  - {name: record_outcome}", "  - {name: record_payment}\n  - {name: record_outcome}", 1),
			want: []string{"steps-reordered x-idempotency.steps"},
		},
		{
			name: "a lease shortened under a step's timeout",
			base: payment, head: strings.Replace(payment, "lease: 30s", "lease: 8s", 1),
			want:     []string{"lease-shortened x-idempotency.lease"},
			inFlight: map[string]string{"lease-shortened": "The call of charge_card (timeout 10s) can now outlast the lease"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, inFlight := compareBlocks(t, tt.base, tt.head)
			if diff := cmp.Diff(tt.want, got, cmpEmpty); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			for rule, w := range tt.inFlight {
				if !strings.Contains(inFlight[rule], w) {
					t.Errorf("%s in flight: %q\ndoes not contain %q", rule, inFlight[rule], w)
				}
			}
		})
	}
}
