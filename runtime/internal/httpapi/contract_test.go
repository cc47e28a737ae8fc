package httpapi_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/idemgen/idemgen/runtime/defaults"
	"github.com/idemgen/idemgen/runtime/internal/httpapi"
)

// A zero field of the contract means exactly the runtime/defaults value,
// the table the spec applies too.
func TestNormalizeReadsZeroAsTheDefaults(t *testing.T) {
	got, err := httpapi.Normalize(httpapi.Contract{Operation: "op", Method: "POST", Route: "/x"})
	if err != nil {
		t.Fatal(err)
	}
	want := httpapi.Contract{
		Operation: "op", Method: "POST", Route: "/x",
		Key:           httpapi.KeySpec{Header: defaults.KeyHeader, Optional: !defaults.KeyRequired, MaxLength: defaults.KeyMaxLength},
		Retention:     defaults.Retention,
		Tombstone:     defaults.Tombstone,
		WaitTimeout:   defaults.WaitTimeout,
		StoreFailures: []httpapi.StatusClass{{Class: 4}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Normalize of a zero contract (-want +got):\n%s", diff)
	}
	if defaults.Concurrency != "wait" || got.Concurrency != httpapi.ConcurrencyWait {
		t.Errorf("zero concurrency %v, defaults.Concurrency %q: want wait for both", got.Concurrency, defaults.Concurrency)
	}
	if sf := defaults.StoreFailures(); len(sf) != 1 || sf[0] != "4xx" {
		t.Errorf("defaults.StoreFailures() = %v; this test's want assumes [4xx]", sf)
	}
	if got.Retention != 24*time.Hour {
		t.Errorf("retention %s, want the spec's 24h", got.Retention)
	}
	none, err := httpapi.Normalize(httpapi.Contract{Operation: "op", Method: "POST", Route: "/x", StoreNoFailures: true})
	if err != nil || len(none.StoreFailures) != 0 {
		t.Errorf("StoreNoFailures: %v, %v; want no store-failures", none.StoreFailures, err)
	}
}

// A contract field that has no meaning is refused, never read as
// something else.
func TestNormalizeRefusesUnusableFields(t *testing.T) {
	for _, tc := range []struct {
		name   string
		modify func(*httpapi.Contract)
		want   string
	}{
		{"no operation", func(c *httpapi.Contract) { c.Operation = "" }, "without an operation name"},
		{"no method", func(c *httpapi.Contract) { c.Method = "" }, "method and route are required"},
		{"negative max-length", func(c *httpapi.Contract) { c.Key.MaxLength = -1 }, "negative key max-length"},
		{"bad key pointer", func(c *httpapi.Contract) { c.Key.BodyPointer = "id" }, "key pointer"},
		{"negative wait-timeout", func(c *httpapi.Contract) { c.WaitTimeout = -time.Second }, "negative duration"},
		{"none and some failures", func(c *httpapi.Contract) {
			c.StoreNoFailures, c.StoreFailures = true, []httpapi.StatusClass{{Status: 409}}
		}, "StoreNoFailures with store-failures"},
		{"class and status", func(c *httpapi.Contract) { c.StoreFailures = []httpapi.StatusClass{{Class: 4, Status: 409}} }, "a class or a status"},
		{"empty status class", func(c *httpapi.Contract) { c.StoreFailures = []httpapi.StatusClass{{}} }, "a class or a status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := httpapi.Contract{Operation: "op", Method: "POST", Route: "/x"}
			tc.modify(&c)
			if _, err := httpapi.Normalize(c); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Normalize: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// Retention plus tombstone, the time a record is kept, must not overflow:
// a wrapped sum would put the purge deadline in the past.
func TestNormalizeRefusesOverflowingRetention(t *testing.T) {
	c := httpapi.Contract{Operation: "op", Method: "POST", Route: "/x", Retention: time.Duration(1<<63 - 1), Tombstone: time.Hour}
	if _, err := httpapi.Normalize(c); err == nil || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("Normalize: %v, want the overflow refused", err)
	}
}
