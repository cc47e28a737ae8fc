package core_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/tracing"
)

// recordingTracer hands each operation span a trace context of its own
// ("trace-1", "trace-2", …) and records what the spans were told.
type recordingTracer struct {
	mu    sync.Mutex
	n     int
	spans []*recordedSpan
}

type recordedSpan struct {
	context string
	events  []string
	links   []string
	ended   bool
}

type traceKey struct{}

func (r *recordingTracer) StartOperation(ctx context.Context, _ string) (context.Context, tracing.OperationSpan) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	s := &recordedSpan{context: fmt.Sprintf("trace-%d", r.n)}
	r.spans = append(r.spans, s)
	return context.WithValue(ctx, traceKey{}, s.context), spanOf{r, s}
}

func (r *recordingTracer) StartEffect(ctx context.Context, _ tracing.Effect) (context.Context, tracing.EffectSpan) {
	return tracing.Noop{}.StartEffect(ctx, tracing.Effect{})
}

func (r *recordingTracer) TraceContext(ctx context.Context) string {
	s, _ := ctx.Value(traceKey{}).(string)
	return s
}

type spanOf struct {
	r *recordingTracer
	s *recordedSpan
}

func (o spanOf) Event(kind, _ string) {
	o.r.mu.Lock()
	o.s.events = append(o.s.events, kind)
	o.r.mu.Unlock()
}
func (o spanOf) Link(tc string) { o.r.mu.Lock(); o.s.links = append(o.s.links, tc); o.r.mu.Unlock() }
func (o spanOf) End(error)      { o.r.mu.Lock(); o.s.ended = true; o.r.mu.Unlock() }

// The first recovery point stores the trace context of the request that
// began the operation: the completer's span, which takes the abandoned
// operation over, links to it, and every span ends.
func TestTheCompleterLinksToTheRequestThatBeganTheOperation(t *testing.T) {
	c, pool, _ := newConsumer(t, core.ProtocolClaimFirst, time.Minute)
	tracer := &recordingTracer{}
	exec, err := core.New(core.Config{Pool: pool, Protocol: core.ProtocolClaimFirst, Tracer: tracer})
	if err != nil {
		t.Fatal(err)
	}
	c.exec = exec
	b := newBank()
	m := message{Source: "bank", ID: "pay-1", Body: []byte(`{}`), Request: []byte("pay-1")}
	abandon := func(ctx context.Context, tx pgx.Tx, op *core.Operation) (core.Decision, error) {
		if _, _, resumed := op.Resumed(); resumed {
			return core.Decision{}, errors.New("the process dies here")
		}
		return paymentSteps(m, b, false)(ctx, tx, op)
	}
	if _, err := c.handle(t.Context(), m, abandon); err == nil {
		t.Fatal("the abandoned attempt: no error")
	}
	resume := func(_ context.Context, scope string, request []byte) (*core.Policy, core.Func, error) {
		return c.policy, paymentSteps(message{Source: scope, ID: string(request), Body: []byte(`{}`)}, b, false), nil
	}
	res, err := core.Redrive(t.Context(), exec, core.RedriveOptions{Resumers: map[string]core.Resumer{"bookPayment": resume}})
	if err != nil || res.Completed != 1 {
		t.Fatalf("redrive: %+v, %v; want one completed", res, err)
	}
	tracer.mu.Lock()
	defer tracer.mu.Unlock()
	if len(tracer.spans) != 2 {
		t.Fatalf("%d operation spans, want 2 (the request, the completer)", len(tracer.spans))
	}
	request, completer := tracer.spans[0], tracer.spans[1]
	if !slices.Equal(completer.links, []string{request.context}) {
		t.Errorf("the completer's span links %q, want the request's %q", completer.links, request.context)
	}
	if !slices.Contains(request.events, "checkpoint") {
		t.Errorf("the request's span events %q, want a checkpoint", request.events)
	}
	for i, s := range tracer.spans {
		if !s.ended {
			t.Errorf("span %d was not ended", i)
		}
	}
}
