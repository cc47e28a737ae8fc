package idemotel_test

import (
	"testing"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemotel"
)

// A nil meter records nothing and does not fail. (The instruments are read
// back through the OpenTelemetry SDK in interop/otelsdk, a module of its
// own, so that the SDK is not a requirement of idemgen's.)
func TestNilMeterIsANoop(t *testing.T) {
	o, err := idemotel.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	o.Observe(idem.Event{Kind: idem.EventNew, Operation: "createOrder"})
	o.ObserveEffect(idem.EffectEvent{Kind: idem.EffectEventOldestDue})
}
