package idem

import "github.com/idemgen/idemgen/runtime/internal/tracing"

// Tracer starts the spans of the executor (Config.Tracer) and of the
// effect worker (WorkerConfig.Tracer): a span per attempt of an operation,
// with an event for what happened to it (new, replay, conflict, waited,
// …), and a span per attempt to execute an effect, linked to the request
// that enqueued it. The trace context of that request is stored with the
// effect and with the operation's first recovery point for the link.
// runtime/idemotel implements it with OpenTelemetry's trace API; nil
// records nothing.
type Tracer = tracing.Tracer

// OperationSpan is a Tracer's span of one attempt of an operation.
type OperationSpan = tracing.OperationSpan

// EffectSpan is a Tracer's span of one attempt to execute an effect.
type EffectSpan = tracing.EffectSpan

// EffectTrace describes an attempt to execute an effect to
// Tracer.StartEffect.
type EffectTrace = tracing.Effect
