package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
)

// The process tests run the payment service as a child process of the
// test binary, so that they can kill it with SIGKILL: the child is this
// binary started again with serviceChildEnv set to its serviceConfig, and
// init diverts to it before any test runs. Wired as ../main.go wires the
// example (an executor on schema idempotency, the generated routes, and
// Maintain for a completer), it serves the generated POST /payments
// (phasedCreatePayment with the hand-written Service and Bank client) on
// a free loopback port, with one fixed merchant as the scope (the tests
// create the tables first). It says "listening <addr>" on stdout
// and then, for each request that asks it to (the stopHeader), says
// "reached <point> <idempotency key>" at that point and blocks there until
// it is killed. For a request with the announceHeader it says "arrived
// <idempotency key>" first, before the runtime has it.
const serviceChildEnv = "PAYMENTS_SERVICE_CHILD"

// stopHeader names the point where the child blocks the request's
// attempt; the retries of the tests do not send it.
const stopHeader = "X-Test-Stop-At"

// announceHeader asks the child to say that the request arrived.
const announceHeader = "X-Test-Announce"

// processHeader tells the recording front of the bank (bankFront) which
// service process sent a request.
const processHeader = "X-Test-Process"

// testMerchant is the scope of every payment the process tests make.
const testMerchant = "merchant-1"

// The points where a child process can stop an attempt, in the order an
// attempt passes them.
const (
	// stopRecordUnsaved: inside record_payment, its row inserted, before
	// the step's transaction (which also claims the key) commits.
	stopRecordUnsaved = "record_unsaved"
	// stopRecorded: record_payment committed its recovery point; the
	// charge is not yet asked for.
	stopRecorded = "recorded"
	// stopBeforeBank: the charge request is built and about to be sent;
	// it has not reached the bank.
	stopBeforeBank = "before_bank"
	// stopBankActed: the bank acted and answered 201; the answer has not
	// been read.
	stopBankActed = "bank_acted"
	// stopChargeReturned: the charge step returned the bank's decision
	// to the runtime, which has recorded nothing of it.
	stopChargeReturned = "charge_returned"
	// stopOutcomeUnsaved: record_outcome updated the payment and returned
	// the answer; its transaction, which stores the charge's outcome and
	// the answer together, has not committed.
	stopOutcomeUnsaved = "outcome_unsaved"
	// stopAnswerStored: the charge's outcome and the answer are committed;
	// the answer is not yet written to the client.
	stopAnswerStored = "answer_stored"
)

// serviceConfig is what a child service process runs.
type serviceConfig struct {
	Database string // the connection string of the service's database (tables already created)
	BankURL  string // the bank, or the recording front of it
	Name     string // sent to the bank in processHeader
	// OnUnknown replaces the charge step's on-unknown policy (the spec's
	// is verify): "retry", "halt", or "" for the spec's.
	OnUnknown string
	// Reject replaces the operation's concurrency (the spec's is wait)
	// with reject.
	Reject   bool
	MaxConns int32 // the pool's size; 0 is pgxpool's default
	// Completer runs the executor's Maintain (the completer, then
	// retention) every few milliseconds.
	Completer bool
	// WebhookSecret, when set, serves POST /webhooks/bank, the bank's
	// settlements signed with it.
	WebhookSecret string
	// StopSettlements stops every settlement in its handler, its changes
	// made and its effect enqueued but not committed: the child says
	// "reached settlement_unsaved <webhook-id>" and blocks until killed.
	StopSettlements bool
}

// stopSettlementUnsaved is where a child with StopSettlements stops each
// settlement.
const stopSettlementUnsaved = "settlement_unsaved"

// settlementStops is the service with the stop of its settlements.
type settlementStops struct{ Service }

func (h settlementStops) ReceiveBankSettlement(ctx context.Context, tx pgx.Tx, op *ReceiveBankSettlementOperation, req *ReceiveBankSettlementRequest) error {
	if err := h.Service.ReceiveBankSettlement(ctx, tx, op, req); err != nil {
		return err
	}
	say("reached", stopSettlementUnsaved, op.Key)
	select {} // until SIGKILL
}

func init() {
	if v := os.Getenv(serviceChildEnv); v != "" {
		os.Exit(serviceChild(v))
	}
}

// serviceChild is the child process: it serves until it is killed.
func serviceChild(config string) int {
	var cfg serviceConfig
	if err := json.Unmarshal([]byte(config), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := serve(context.Background(), cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, cfg serviceConfig) error {
	pc, err := pgxpool.ParseConfig(cfg.Database)
	if err != nil {
		return err
	}
	if cfg.MaxConns > 0 {
		pc.MaxConns = cfg.MaxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return err
	}
	defer pool.Close()
	exec, err := idem.NewExecutor(idem.Config{Pool: pool, Schema: "idempotency",
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return err
	}
	bank := &Bank{URL: cfg.BankURL, Client: &http.Client{Transport: stopTransport{process: cfg.Name, next: http.DefaultTransport}}}
	op := phasedCreatePayment(stopHandlers{Service{Bank: bank}})
	if err := replacePolicy(&op, cfg.OnUnknown); err != nil {
		return err
	}
	if cfg.Reject {
		op.Contract.Concurrency = idemimpl.ConcurrencyReject
	}
	routes, err := idemimpl.Routes(exec, func(*http.Request) (string, error) { return testMerchant, nil }, nil,
		idemimpl.BindPhased(op, mountCreatePayment))
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	if err := idemimpl.Register(mux, routes); err != nil {
		return err
	}
	if cfg.WebhookSecret != "" {
		var h WebhookHandlers = Service{}
		if cfg.StopSettlements {
			h = settlementStops{}
		}
		settlements, err := NewReceiveBankSettlementReceiver(exec, h, cfg.WebhookSecret)
		if err != nil {
			return err
		}
		mux.Handle("POST /webhooks/bank", settlements)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	say("listening", ln.Addr().String())
	if cfg.Completer {
		go func() { _ = exec.Maintain(ctx, idem.MaintainOptions{Interval: 10 * time.Millisecond}) }()
	}
	srv := &http.Server{Handler: stopMiddleware(mux), ReadHeaderTimeout: 10 * time.Second}
	return srv.Serve(ln)
}

// replacePolicy sets the on-unknown policy of op's charge step: the
// test-only variants of the spec's verify.
func replacePolicy(op *idemimpl.Phased[CreatePaymentRequest], policy string) error {
	var p idemimpl.OnUnknown
	switch policy {
	case "":
		return nil
	case "retry":
		p = idemimpl.OnUnknownRetry
	case "halt":
		p = idemimpl.OnUnknownHalt
	default:
		return fmt.Errorf("on-unknown %q: want retry, halt or nothing", policy)
	}
	for i := range op.Steps {
		if op.Steps[i].Name == "charge_card" {
			op.Steps[i].OnUnknown = p
			return nil
		}
	}
	return errors.New("the operation has no step charge_card")
}

// stdout serialises the child's lines.
var stdout sync.Mutex

// say writes one line to the parent.
func say(words ...any) {
	stdout.Lock()
	defer stdout.Unlock()
	fmt.Println(words...)
}

// stopKey is the context key of the request's stop.
type stopKey struct{}

// stop is where a request's attempt stops, and its idempotency key.
type stop struct{ point, key string }

// stopMiddleware puts the request's stop (stopHeader) in its context,
// which the runtime hands to the steps, and stops at stopAnswerStored
// when the answer is about to be written; it says that a request with
// the announceHeader arrived.
func stopMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(announceHeader) != "" {
			say("arrived", r.Header.Get("Idempotency-Key"))
		}
		point := r.Header.Get(stopHeader)
		if point == "" {
			next.ServeHTTP(w, r)
			return
		}
		ctx := context.WithValue(r.Context(), stopKey{}, stop{point: point, key: r.Header.Get("Idempotency-Key")})
		next.ServeHTTP(&stopWriter{ResponseWriter: w, ctx: ctx}, r.WithContext(ctx))
	})
}

// reach blocks forever, after telling the parent, when the attempt of
// ctx stops at point.
func reach(ctx context.Context, point string) {
	if s, _ := ctx.Value(stopKey{}).(stop); s.point == point {
		say("reached", point, s.key)
		select {} // until SIGKILL
	}
}

// stopWriter stops before the answer's first byte is written: the
// runtime writes it after the commit that stored it.
type stopWriter struct {
	http.ResponseWriter
	ctx context.Context
}

func (w *stopWriter) WriteHeader(code int) {
	reach(w.ctx, stopAnswerStored)
	w.ResponseWriter.WriteHeader(code)
}

func (w *stopWriter) Write(b []byte) (int, error) {
	reach(w.ctx, stopAnswerStored)
	return w.ResponseWriter.Write(b)
}

func (w *stopWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// stopTransport is the bank client's transport: it names the process to
// the bank's recording front and stops before a charge is sent and after
// the bank answered it.
type stopTransport struct {
	process string
	next    http.RoundTripper
}

func (t stopTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(processHeader, t.process)
	charge := r.Method == http.MethodPost
	if charge {
		reach(r.Context(), stopBeforeBank)
	}
	resp, err := t.next.RoundTrip(r)
	if charge && err == nil && resp.StatusCode == http.StatusCreated {
		reach(r.Context(), stopBankActed)
	}
	return resp, err
}

// stopHandlers is the service with the stops of its steps.
type stopHandlers struct{ Service }

func (h stopHandlers) CreatePaymentRecordPayment(ctx context.Context, tx pgx.Tx, op *CreatePaymentOperation, req *CreatePaymentRequest) (*PaymentRecord, error) {
	out, err := h.Service.CreatePaymentRecordPayment(ctx, tx, op, req)
	if err == nil {
		reach(ctx, stopRecordUnsaved)
	}
	return out, err
}

func (h stopHandlers) CreatePaymentChargeCard(ctx context.Context, op *CreatePaymentOperation, key string, req *CreatePaymentRequest, in *PaymentRecord) (*Charge, error) {
	reach(ctx, stopRecorded)
	out, err := h.Service.CreatePaymentChargeCard(ctx, op, key, req, in)
	if err == nil {
		reach(ctx, stopChargeReturned)
	}
	return out, err
}

func (h stopHandlers) CreatePaymentRecordOutcome(ctx context.Context, tx pgx.Tx, op *CreatePaymentOperation, req *CreatePaymentRequest, in *Charge) (CreatePaymentResponse, error) {
	out, err := h.Service.CreatePaymentRecordOutcome(ctx, tx, op, req, in)
	if err == nil {
		reach(ctx, stopOutcomeUnsaved)
	}
	return out, err
}
