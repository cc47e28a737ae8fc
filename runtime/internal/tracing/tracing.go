// Package tracing is the runtime's seam for traces: the executor and the
// effect worker start their spans through a Tracer, and store the trace
// context of the request that caused an effect or a recovery point so
// that the span of whoever finishes the work later links back to it. The
// runtime holds no tracing library: runtime/idemotel implements Tracer
// with OpenTelemetry's trace API, and Noop, the default, records nothing.
package tracing

import "context"

// Tracer starts the runtime's spans.
type Tracer interface {
	// StartOperation begins the span of one attempt of the named
	// operation and returns ctx carrying it.
	StartOperation(ctx context.Context, operation string) (context.Context, OperationSpan)
	// StartEffect begins the span of one attempt to execute an effect,
	// linked to the request that enqueued it (Effect.TraceContext), and
	// returns ctx carrying it.
	StartEffect(ctx context.Context, e Effect) (context.Context, EffectSpan)
	// TraceContext returns the trace context ctx carries in the form
	// stored with an effect or a recovery point ("" for none): what
	// StartEffect and OperationSpan.Link are handed back.
	TraceContext(ctx context.Context) string
}

// OperationSpan is the span of one attempt of an operation.
type OperationSpan interface {
	// Event marks what happened to the attempt: the name of one of the
	// executor's event kinds (new, replay, conflict, waited, …) and the
	// operation id it concerns ("" when there is none).
	Event(kind, operationID string)
	// Link links the span to the request that began the operation, from
	// its stored trace context: an attempt that took the operation over
	// (a retry after a crash, or the completer) continues that request's
	// work.
	Link(traceContext string)
	// End ends the span; err is the attempt's failure, nil when it was
	// decided, replayed or refused.
	End(err error)
}

// Effect describes one attempt to execute an effect.
type Effect struct {
	Operation    string // the contract's operation name
	Effect       string // the effect's name in the contract
	OperationID  string // the operation that enqueued it
	Attempt      int    // 1 for the first
	TraceContext string // of the request that enqueued it; "" for none
}

// EffectSpan is the span of one attempt to execute an effect.
type EffectSpan interface {
	// End ends the span with what the worker recorded for the attempt
	// (done, unknown, failed, dead, fenced, …); err is the provider's
	// error, if any.
	End(outcome string, err error)
}

// Noop is the Tracer that records nothing, the default.
type Noop struct{}

// StartOperation returns ctx and a span that records nothing.
func (Noop) StartOperation(ctx context.Context, _ string) (context.Context, OperationSpan) {
	return ctx, noopOperation{}
}

// StartEffect returns ctx and a span that records nothing.
func (Noop) StartEffect(ctx context.Context, _ Effect) (context.Context, EffectSpan) {
	return ctx, noopEffect{}
}

// TraceContext returns "".
func (Noop) TraceContext(context.Context) string { return "" }

// noopOperation is Noop's operation span.
type noopOperation struct{}

func (noopOperation) Event(string, string) {}
func (noopOperation) Link(string)          {}
func (noopOperation) End(error)            {}

// noopEffect is Noop's effect span.
type noopEffect struct{}

func (noopEffect) End(string, error) {}
