package otelsdk_test

import (
	"context"
	"maps"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemotel"
)

// The instruments read back through the SDK's manual reader carry the
// counts, durations and the gauge the events gave, with the documented
// names and attributes, and no key.
func TestInstrumentsReadBackThroughTheSDK(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	o, err := idemotel.New(provider.Meter("test"))
	if err != nil {
		t.Fatal(err)
	}
	o.Observe(idem.Event{Kind: idem.EventNew, Operation: "createOrder", Duration: 20 * time.Millisecond})
	o.Observe(idem.Event{Kind: idem.EventReplay, Operation: "createOrder", Duration: time.Millisecond})
	o.Observe(idem.Event{Kind: idem.EventReplay, Operation: "createOrder", Duration: time.Millisecond})
	o.Observe(idem.Event{Kind: idem.EventEffectEnqueued, Operation: "createOrder", Effect: "confirmation_email"})
	for _, k := range []idem.EffectEventKind{idem.EffectEventDone, idem.EffectEventDone, idem.EffectEventRetried,
		idem.EffectEventVerified, idem.EffectEventHalted, idem.EffectEventDead} {
		o.ObserveEffect(idem.EffectEvent{Kind: k, Operation: "createOrder", Effect: "confirmation_email", Attempt: 1, Duration: 5 * time.Millisecond})
	}
	o.ObserveEffect(idem.EffectEvent{Kind: idem.EffectEventOldestDue, Age: 90 * time.Second})

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			got[m.Name] = m.Data
		}
	}

	sums := func(name string) map[string]int64 {
		t.Helper()
		s, ok := got[name].(metricdata.Sum[int64])
		if !ok {
			t.Fatalf("%s: %T, want a counter", name, got[name])
		}
		out := map[string]int64{}
		for _, dp := range s.DataPoints {
			out[attrs(dp.Attributes)] = dp.Value
		}
		return out
	}
	wantOps := map[string]int64{
		"idem.operation=createOrder,idem.outcome=new":    1,
		"idem.operation=createOrder,idem.outcome=replay": 2,
	}
	if g := sums(idemotel.OperationsName); !maps.Equal(g, wantOps) {
		t.Errorf("%s: %v, want %v", idemotel.OperationsName, g, wantOps)
	}
	base := "idem.effect=confirmation_email,idem.event="
	wantEffects := map[string]int64{}
	for ev, n := range map[string]int64{"enqueued": 1, "done": 2, "retried": 1, "verified": 1, "halted": 1, "dead": 1} {
		wantEffects[base+ev+",idem.operation=createOrder"] = n
	}
	if g := sums(idemotel.EffectsName); !maps.Equal(g, wantEffects) {
		t.Errorf("%s: %v, want %v", idemotel.EffectsName, g, wantEffects)
	}
	h, ok := got[idemotel.OperationDurationName].(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("%s: %T, want a histogram", idemotel.OperationDurationName, got[idemotel.OperationDurationName])
	}
	var n uint64
	for _, dp := range h.DataPoints {
		n += dp.Count
	}
	if n != 3 {
		t.Errorf("%s counted %d durations, want 3", idemotel.OperationDurationName, n)
	}
	g, ok := got[idemotel.OldestDueName].(metricdata.Gauge[float64])
	if !ok || len(g.DataPoints) != 1 || g.DataPoints[0].Value != 90 {
		t.Errorf("%s: %+v, want one reading of 90 (seconds)", idemotel.OldestDueName, got[idemotel.OldestDueName])
	}
}

func attrs(s attribute.Set) string {
	var out string
	for i, kv := range s.ToSlice() {
		if i > 0 {
			out += ","
		}
		out += string(kv.Key) + "=" + kv.Value.String()
	}
	return out
}
