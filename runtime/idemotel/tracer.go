package idemotel

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/idemgen/idemgen/runtime/idem"
)

// The span attribute keys beside AttrOperation, AttrOutcome and
// AttrEffect (docs/traces.md). No key, idempotency or effect, is ever an
// attribute.
const (
	AttrOperationID = attribute.Key("idem.operation_id") // the operation's id, as idemgen ops shows it
	AttrAttempt     = attribute.Key("idem.attempt")      // an effect attempt's number, 1 for the first
)

// Tracer is an idem.Tracer that records spans through OpenTelemetry's
// trace API. Give it to idem.Config.Tracer and idem.WorkerConfig.Tracer.
type Tracer struct {
	tracer trace.Tracer
}

var _ idem.Tracer = (*Tracer)(nil)

// NewTracer returns a Tracer whose spans tp's tracer records; a nil tp
// records nothing.
func NewTracer(tp trace.TracerProvider) *Tracer {
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	return &Tracer{tracer: tp.Tracer("github.com/idemgen/idemgen/runtime/idemotel")}
}

// StartOperation starts the span "idem <operation>" as a child of ctx's.
func (t *Tracer) StartOperation(ctx context.Context, operation string) (context.Context, idem.OperationSpan) {
	ctx, span := t.tracer.Start(ctx, "idem "+operation, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(AttrOperation.String(operation)))
	return ctx, operationSpan{span}
}

// StartEffect starts the span "idem.effect <effect>", a consumer span as
// OpenTelemetry's messaging conventions model work taken from a queue: a
// root of its own trace (it runs after the request has ended), linked to
// the request that enqueued the effect.
func (t *Tracer) StartEffect(ctx context.Context, e idem.EffectTrace) (context.Context, idem.EffectSpan) {
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindConsumer), trace.WithNewRoot(),
		trace.WithAttributes(AttrOperation.String(e.Operation), AttrEffect.String(e.Effect),
			AttrOperationID.String(e.OperationID), AttrAttempt.Int(e.Attempt))}
	if sc := spanContext(e.TraceContext); sc.IsValid() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: sc}))
	}
	ctx, span := t.tracer.Start(ctx, "idem.effect "+e.Effect, opts...)
	return ctx, effectSpan{span}
}

// TraceContext returns ctx's span context as a W3C traceparent ("" when
// ctx carries no valid one).
func (t *Tracer) TraceContext(ctx context.Context) string {
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	return c.Get("traceparent")
}

// spanContext reads a stored traceparent back ("" or a malformed one is
// an invalid span context).
func spanContext(traceparent string) trace.SpanContext {
	if traceparent == "" {
		return trace.SpanContext{}
	}
	ctx := propagation.TraceContext{}.Extract(context.Background(), propagation.MapCarrier{"traceparent": traceparent})
	return trace.SpanContextFromContext(ctx)
}

// operationSpan is the span of one attempt of an operation.
type operationSpan struct{ span trace.Span }

// Event adds the executor's event as a span event and, for the outcome
// of the attempt, as its idem.outcome attribute (the last one wins: a
// waited duplicate's replay), with the operation id.
func (s operationSpan) Event(kind, operationID string) {
	attrs := []attribute.KeyValue{AttrOutcome.String(kind)}
	if operationID != "" {
		attrs = append(attrs, AttrOperationID.String(operationID))
	}
	s.span.AddEvent(kind, trace.WithAttributes(attrs...))
	if !intermediate[kind] {
		s.span.SetAttributes(attrs...)
	}
}

// intermediate names the events that do not decide an attempt: the span's
// idem.outcome is the last event not among them.
var intermediate = map[string]bool{
	idem.EventEffectEnqueued.String(): true, idem.EventCheckpoint.String(): true,
	idem.EventTakenOver.String(): true, idem.EventWaited.String(): true,
}

// Link links the span to the stored request that began the operation.
func (s operationSpan) Link(traceContext string) {
	if sc := spanContext(traceContext); sc.IsValid() {
		s.span.AddLink(trace.Link{SpanContext: sc})
	}
}

// End ends the span, with an error status when the attempt failed.
func (s operationSpan) End(err error) {
	if err != nil {
		s.span.RecordError(err)
		s.span.SetStatus(codes.Error, "idempotent operation failed")
	}
	s.span.End()
}

// effectSpan is the span of one attempt to execute an effect.
type effectSpan struct{ span trace.Span }

// End ends the span with the attempt's outcome as its idem.event
// attribute, and an error status when the provider failed.
func (s effectSpan) End(outcome string, err error) {
	s.span.SetAttributes(AttrEvent.String(outcome))
	if err != nil {
		s.span.RecordError(err)
		s.span.SetStatus(codes.Error, "effect attempt failed")
	}
	s.span.End()
}
