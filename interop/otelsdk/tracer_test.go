package otelsdk_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/idemgen/idemgen/examples/orders/providers"
	"github.com/idemgen/idemgen/examples/orders/shop"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemotel"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// A trace read back through the SDK's in-memory recorder: the orders
// example's createOrder, sent under a client's trace, records the span
// "idem createOrder" as a child of it with the operation id and the
// outcome new; the effect worker's spans for the order's two effects are
// linked to that span and carry the same operation id. A retry's span
// says replay. No attribute of any span holds the idempotency key or an
// effect key.
func TestTraceLinksTheRequestToTheEffectWorker(t *testing.T) {
	ctx := t.Context()
	recorder := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	tracer := idemotel.NewTracer(tp)

	url := pgtest.Database(t)
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	const schema = "idempotency"
	if err := idem.Migrate(ctx, pool, schema); err != nil {
		t.Fatal(err)
	}
	for _, ddl := range []string{shop.SchemaSQL, providers.SchemaSQL} {
		if _, err := pool.Exec(ctx, ddl); err != nil {
			t.Fatal(err)
		}
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool, Schema: schema, Tracer: tracer})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	tenant := func(r *http.Request) (string, error) { return "tenant-a", nil }
	if err := shop.Register(mux, exec, shop.Service{}, tenant); err != nil {
		t.Fatal(err)
	}
	// The client's trace: the handler runs under its request span, as an
	// HTTP middleware would start it.
	client, clientSpan := tp.Tracer("client").Start(ctx, "POST /orders")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r.WithContext(trace.ContextWithSpanContext(r.Context(), clientSpan.SpanContext())))
	}))
	defer srv.Close()
	const key = "trace-key-5c1e"
	for range 2 { // the request, then its retry
		post(t, client, srv.URL, key)
	}
	clientSpan.End()

	w, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, Schema: schema, Providers: shop.Providers(providers.New(pool)), Tracer: tracer})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- w.Run(runCtx) }()
	waitEffectsDone(t, pool, schema, 2)
	stop()
	if err := <-ran; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}

	var ops, effects []sdktrace.ReadOnlySpan
	for _, s := range recorder.Ended() {
		switch {
		case s.Name() == "idem createOrder":
			ops = append(ops, s)
		case strings.HasPrefix(s.Name(), "idem.effect "):
			effects = append(effects, s)
		}
		for _, kv := range append(s.Attributes(), eventAttributes(s)...) {
			if strings.Contains(kv.Value.String(), key) || strings.Contains(kv.Value.String(), "/confirmation_email/") {
				t.Errorf("span %q carries a key in %s=%s", s.Name(), kv.Key, kv.Value.String())
			}
		}
	}
	if len(ops) != 2 {
		t.Fatalf("%d spans of createOrder, want 2 (the request and its retry)", len(ops))
	}
	first, retry := ops[0], ops[1]
	if got := attr(first, idemotel.AttrOutcome); got != "new" {
		t.Errorf("the first request's outcome %q, want new", got)
	}
	if got := attr(retry, idemotel.AttrOutcome); got != "replay" {
		t.Errorf("the retry's outcome %q, want replay", got)
	}
	opID := attr(first, idemotel.AttrOperationID)
	if opID == "" || attr(retry, idemotel.AttrOperationID) != opID {
		t.Errorf("operation ids %q and %q, want one, the same", opID, attr(retry, idemotel.AttrOperationID))
	}
	if first.Parent().SpanID() != clientSpan.SpanContext().SpanID() {
		t.Errorf("the operation's span is not a child of the client's request span")
	}

	if len(effects) != 2 {
		t.Fatalf("%d effect spans, want 2 (confirmation_email and reserve_stock)", len(effects))
	}
	for _, s := range effects {
		if s.SpanKind() != trace.SpanKindConsumer {
			t.Errorf("%s: kind %v, want consumer", s.Name(), s.SpanKind())
		}
		if got := attr(s, idemotel.AttrOperationID); got != opID {
			t.Errorf("%s: operation id %q, want the request's %q", s.Name(), got, opID)
		}
		if got := attr(s, idemotel.AttrEvent); got != "done" {
			t.Errorf("%s: outcome %q, want done", s.Name(), got)
		}
		links := s.Links()
		if len(links) != 1 || links[0].SpanContext.SpanID() != first.SpanContext().SpanID() ||
			links[0].SpanContext.TraceID() != first.SpanContext().TraceID() {
			t.Errorf("%s: links %+v, want one to the request's operation span %s", s.Name(), links, first.SpanContext().SpanID())
		}
	}
}

// post sends one createOrder under key with ctx and fails the test unless
// it is answered 201.
func post(t *testing.T, ctx context.Context, url, key string) {
	t.Helper()
	body := `{"shop_id":"s1","external_order_id":"T-1","customer_id":"c42","items":[{"sku":"SKU-1","quantity":1}],` +
		`"delivery":{"name":"Ann","street":"1 Main St","city":"Oslo","postal_code":"0150","country":"NO"}}`
	req, err := http.NewRequestWithContext(ctx, "POST", url+"/orders", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("createOrder answered %d, want 201", resp.StatusCode)
	}
}

// waitEffectsDone waits until n effects are done, polling the outbox.
func waitEffectsDone(t *testing.T, pool *pgxpool.Pool, schema string, n int) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		var done int
		if err := pool.QueryRow(t.Context(), "SELECT count(*) FROM "+schema+".idempotency_outbox WHERE state = 'done'").Scan(&done); err != nil {
			t.Fatal(err)
		}
		if done >= n {
			return
		}
		select {
		case <-t.Context().Done():
			t.Fatal("the effects were not done")
		case <-tick.C:
		}
	}
}

// attr returns the value of the span's attribute k, "" when it has none.
func attr(s sdktrace.ReadOnlySpan, k attribute.Key) string {
	for _, kv := range s.Attributes() {
		if kv.Key == k {
			return kv.Value.String()
		}
	}
	return ""
}

// eventAttributes returns the attributes of every event of s.
func eventAttributes(s sdktrace.ReadOnlySpan) []attribute.KeyValue {
	var out []attribute.KeyValue
	for _, ev := range s.Events() {
		out = append(out, ev.Attributes...)
	}
	return out
}
