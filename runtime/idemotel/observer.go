package idemotel

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/idemgen/idemgen/runtime/idem"
)

// The instrument names (docs/metrics.md).
const (
	OperationsName        = "idem.operations"
	OperationDurationName = "idem.operation.duration"
	EffectsName           = "idem.effects"
	EffectCallDuration    = "idem.effect.call.duration"
	OldestDueName         = "idem.effects.oldest_due.age"
)

// The attribute keys (docs/metrics.md).
const (
	AttrOperation = attribute.Key("idem.operation") // the contract's operation name
	AttrOutcome   = attribute.Key("idem.outcome")   // an executor event: new, replay, conflict, …
	AttrEffect    = attribute.Key("idem.effect")    // the contract's effect name
	AttrEvent     = attribute.Key("idem.event")     // an effect event: enqueued, done, retried, verified, halted, dead, failed, fenced
)

// Observer is an idem.Observer and an idem.EffectObserver that records
// each event in OpenTelemetry instruments. Give it to idem.Config.Observer
// and idem.WorkerConfig.Observer.
type Observer struct {
	operations  metric.Int64Counter
	opDuration  metric.Float64Histogram
	effects     metric.Int64Counter
	effectCalls metric.Float64Histogram
	oldestDue   metric.Float64Gauge
}

// New returns an Observer whose instruments meter creates; a nil meter
// records nothing.
func New(meter metric.Meter) (*Observer, error) {
	if meter == nil {
		meter = noop.NewMeterProvider().Meter("github.com/idemgen/idemgen/runtime/idemotel")
	}
	o := &Observer{}
	var err error
	if o.operations, err = meter.Int64Counter(OperationsName, metric.WithUnit("{operation}"),
		metric.WithDescription("Idempotent requests by how the executor decided them")); err != nil {
		return nil, err
	}
	if o.opDuration, err = meter.Float64Histogram(OperationDurationName, metric.WithUnit("s"),
		metric.WithDescription("From the start of an execution to its decision")); err != nil {
		return nil, err
	}
	if o.effects, err = meter.Int64Counter(EffectsName, metric.WithUnit("{effect}"),
		metric.WithDescription("Effect attempts by what the worker recorded")); err != nil {
		return nil, err
	}
	if o.effectCalls, err = meter.Float64Histogram(EffectCallDuration, metric.WithUnit("s"),
		metric.WithDescription("The duration of provider calls (Do and Verify)")); err != nil {
		return nil, err
	}
	if o.oldestDue, err = meter.Float64Gauge(OldestDueName, metric.WithUnit("s"),
		metric.WithDescription("How long the oldest due effect has waited; 0 when none is due")); err != nil {
		return nil, err
	}
	return o, nil
}

// Observe records an executor event.
func (o *Observer) Observe(ev idem.Event) {
	if ev.Kind == idem.EventEffectEnqueued {
		o.effects.Add(context.Background(), 1, metric.WithAttributes(AttrOperation.String(ev.Operation),
			AttrEffect.String(ev.Effect), AttrEvent.String("enqueued")))
		return
	}
	attrs := metric.WithAttributes(AttrOperation.String(ev.Operation), AttrOutcome.String(ev.Kind.String()))
	ctx := context.Background()
	o.operations.Add(ctx, 1, attrs)
	o.opDuration.Record(ctx, ev.Duration.Seconds(), attrs)
}

// ObserveEffect records a worker event.
func (o *Observer) ObserveEffect(ev idem.EffectEvent) {
	ctx := context.Background()
	if ev.Kind == idem.EffectEventOldestDue {
		o.oldestDue.Record(ctx, ev.Age.Seconds())
		return
	}
	attrs := metric.WithAttributes(AttrOperation.String(ev.Operation), AttrEffect.String(ev.Effect), AttrEvent.String(ev.Kind.String()))
	o.effects.Add(ctx, 1, attrs)
	if ev.Duration > 0 {
		o.effectCalls.Record(ctx, ev.Duration.Seconds(), attrs)
	}
}
