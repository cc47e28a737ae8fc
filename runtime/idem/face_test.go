package idem_test

import (
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// faultName matches the names of fault-injection machinery: hook, but
// not webhook (a webhook receiver is part of the face).
var faultName = regexp.MustCompile(`(?i)(?:^|[^b]|[^e]b)hook|fault|inject`)

// faultsPkg is the package of the executor's fault hooks.
const faultsPkg = "github.com/idemgen/idemgen/runtime/internal/faults"

// face is what a user of a package can reach: its exported names, with the
// exported fields and methods of its types as Type.Name, and every type of
// this module reachable through them.
type face struct {
	names []string
	types map[*types.TypeName]bool
}

// loadFace loads the package at path from its compiled export data (go
// list -export) and walks its face.
func loadFace(t *testing.T, path string) *face {
	t.Helper()
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}", path).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports := map[string]string{}
	for line := range strings.Lines(string(out)) {
		if p, file, ok := strings.Cut(strings.TrimSpace(line), "="); ok && file != "" {
			exports[p] = file
		}
	}
	lookup := func(p string) (io.ReadCloser, error) {
		file, ok := exports[p]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", p)
		}
		return os.Open(file)
	}
	pkg, err := importer.ForCompiler(token.NewFileSet(), "gc", lookup).Import(path)
	if err != nil {
		t.Fatal(err)
	}
	f := &face{types: map[*types.TypeName]bool{}}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		f.names = append(f.names, name)
		f.walk(obj.Type())
		if tn, ok := obj.(*types.TypeName); ok {
			f.members(name, tn.Type())
		}
	}
	slices.Sort(f.names)
	return f
}

// members records the exported fields and methods a user reaches on a
// value of type typ (and *typ), promoted ones included, as prefix.Name.
func (f *face) members(prefix string, typ types.Type) {
	seen := map[string]bool{}
	for _, ms := range []*types.MethodSet{types.NewMethodSet(typ), types.NewMethodSet(types.NewPointer(typ))} {
		for sel := range ms.Methods() {
			if m := sel.Obj(); m.Exported() && !seen[m.Name()] {
				seen[m.Name()] = true
				f.names = append(f.names, prefix+"."+m.Name())
				f.walk(m.Type())
			}
		}
	}
	st, ok := typ.Underlying().(*types.Struct)
	if !ok {
		return
	}
	for field := range st.Fields() {
		if field.Exported() {
			f.names = append(f.names, prefix+"."+field.Name())
			f.walk(field.Type())
		} else if field.Embedded() {
			f.members(prefix, field.Type()) // promoted exported members of an unexported embedding
		}
	}
}

// walk records the module's named types reachable from typ, and their
// exported members.
func (f *face) walk(typ types.Type) {
	switch t := types.Unalias(typ).(type) {
	case *types.Named:
		tn := t.Obj()
		if tn.Pkg() == nil || !strings.HasPrefix(tn.Pkg().Path(), "github.com/idemgen/idemgen/") || f.types[tn] {
			return
		}
		f.types[tn] = true
		for arg := range t.TypeArgs().Types() {
			f.walk(arg)
		}
		f.members(tn.Name(), t)
		f.walk(t.Underlying())
	case *types.Pointer:
		f.walk(t.Elem())
	case *types.Slice:
		f.walk(t.Elem())
	case *types.Array:
		f.walk(t.Elem())
	case *types.Map:
		f.walk(t.Key())
		f.walk(t.Elem())
	case *types.Chan:
		f.walk(t.Elem())
	case *types.Signature:
		for v := range t.Params().Variables() {
			f.walk(v.Type())
		}
		for v := range t.Results().Variables() {
			f.walk(v.Type())
		}
	case *types.Struct:
		for field := range t.Fields() {
			if field.Exported() || field.Embedded() {
				f.walk(field.Type())
			}
		}
	case *types.Interface:
		for m := range t.Methods() {
			f.walk(m.Type())
		}
	}
}

// wantNoFaults fails t on any fault-injection name or type users of the
// package could reach.
func (f *face) wantNoFaults(t *testing.T) {
	t.Helper()
	for tn := range f.types {
		if tn.Pkg().Path() == faultsPkg || faultName.MatchString(tn.Name()) {
			t.Errorf("the face reaches fault-injection type %s.%s", tn.Pkg().Path(), tn.Name())
		}
	}
	for _, n := range f.names {
		if faultName.MatchString(n) {
			t.Errorf("the face exports fault-injection name %s", n)
		}
	}
}

// Must show 2: nothing a service can reach in runtime/idem, a name, a
// field, a method or a type behind them, is a fault hook; and its names
// are these, so that growing the face is a deliberate change.
func TestUserFaceExposesNoFaultHooks(t *testing.T) {
	f := loadFace(t, "github.com/idemgen/idemgen/runtime/idem")
	f.wantNoFaults(t)
	want := []string{
		"AttemptCompleted", "AttemptExpired", "AttemptFailed", "AttemptInProgress", "AttemptRequiresRecovery", "AttemptState",
		"AttemptStatus", "AttemptStatus.Body", "AttemptStatus.Header", "AttemptStatus.OperationID", "AttemptStatus.State",
		"AttemptStatus.Status", "AttemptUnknown",
		"ClassBusiness", "ClassCanceled", "ClassConnection", "ClassDatabase", "ClassInternal", "ClassPanic", "ClassSaturated", "ClassTimeout",
		"ClassTransient", "Clock", "Clock.Now", "Config", "Config.AcquireTimeout", "Config.Clock", "Config.KeyHashSecret",
		"Config.Logger", "Config.Observer", "Config.Pool", "Config.Protocol", "Config.ReplayCacheBytes", "Config.Schema",
		"Config.ScopeShare", "Config.Tracer", "Consumer", "Consumer.Deliver", "Consumer.Name", "Consumer.Redrive", "ConsumerConfig",
		"ConsumerConfig.Handler", "ConsumerConfig.MaxAttempts", "ConsumerConfig.MaxIDLength", "ConsumerConfig.Name", "ConsumerConfig.Retention",
		"ConsumerConfig.WaitTimeout", "Delivery", "Delivery.Enqueue", "Delivery.Message", "Delivery.OperationID", "DeliveryResult",
		"DeliveryResult.Attempts", "DeliveryResult.Err", "DeliveryResult.OperationID", "DeliveryResult.Outcome", "EffectCall",
		"EffectCall.Attempt", "EffectCall.Effect", "EffectCall.Key", "EffectCall.Operation", "EffectCall.Payload", "EffectDone",
		"EffectEvent", "EffectEvent.Age", "EffectEvent.Attempt", "EffectEvent.Duration", "EffectEvent.Effect", "EffectEvent.Kind",
		"EffectEvent.Operation", "EffectEventDead", "EffectEventDone", "EffectEventFailed", "EffectEventFenced", "EffectEventHalted",
		"EffectEventKind", "EffectEventKind.String", "EffectEventOldestDue", "EffectEventRetried", "EffectEventVerified",
		"EffectFailed", "EffectNotDone", "EffectObserver", "EffectObserver.ObserveEffect", "EffectOutcome", "EffectOutcome.Err",
		"EffectOutcome.Kind", "EffectOutcomeKind", "EffectOutcomeKind.String", "EffectSpan", "EffectSpan.End", "EffectTrace",
		"EffectTrace.Attempt", "EffectTrace.Effect", "EffectTrace.Operation", "EffectTrace.OperationID", "EffectTrace.TraceContext",
		"EffectUnknown", "ErrBodyTooLarge", "ErrExpired", "ErrFingerprintMismatch", "ErrInProgress", "ErrInvalidBody",
		"ErrInvalidMessage", "ErrKeyMalformed", "ErrKeyMissing", "ErrMessageBusy", "ErrRequiresRecovery", "ErrResourceGone",
		"ErrScopeBusy", "ErrTxOwnedByExecutor", "ErrUnavailable", "ErrUnsupportedMediaType", "ErrorClass", "Event", "Event.Class",
		"Event.Duration", "Event.Effect", "Event.Kind", "Event.Operation", "EventCheckpoint", "EventConflict", "EventEffectEnqueued",
		"EventExpired", "EventKind", "EventKind.String", "EventNew", "EventRejectInProgress", "EventReplay", "EventRequiresRecovery",
		"EventRolledBack", "EventScopeBusy", "EventTakenOver", "EventUnavailable", "EventWaitTimeout", "EventWaited", "Executor",
		"Executor.Maintain", "Executor.Status", "Executor.Sweep", "MaintainOptions", "MaintainOptions.BatchSize",
		"MaintainOptions.BatchTimeout", "MaintainOptions.Interval", "MaintainOptions.MaxClockSkew",
		"MaintainOptions.NaturalKeyLifetime", "Message", "Message.Body", "Message.ID", "Message.Source", "Message.TraceContext",
		"MessageDeadLettered", "MessageDuplicate", "MessageFunc", "MessageMismatch", "MessageOutcome", "MessageOutcome.Ack",
		"MessageOutcome.String", "MessageProcessed", "MessageRetry", "Migrate", "NewConsumer", "NewExecutor", "NewWorker", "Nullable",
		"Nullable.IsZero", "Nullable.MarshalJSON", "Nullable.Null", "Nullable.Set", "Nullable.UnmarshalJSON", "Nullable.Value",
		"Observer", "Observer.Observe", "OperationSpan", "OperationSpan.End", "OperationSpan.Event", "OperationSpan.Link",
		"OutcomeDone", "OutcomeFailed", "OutcomeNotDone", "OutcomeUnknown", "ProblemAttemptUnknown", "ProblemBodyTooLarge", "ProblemDeadlineExceeded",
		"ProblemExpired", "ProblemFingerprint", "ProblemInProgress", "ProblemInternal", "ProblemInvalidBody", "ProblemKeyMalformed",
		"ProblemKeyMissing", "ProblemMethodNotAllowed", "ProblemNaturalKeyExists", "ProblemRequestTimeout", "ProblemRequiresRecovery",
		"ProblemResourceGone", "ProblemScopeBusy", "ProblemScopeUnavailable", "ProblemTypeBase", "ProblemUnauthenticated",
		"ProblemUnavailable", "ProblemUnsupportedMediaType", "ProblemWebhookFailed", "ProblemWebhookSignature", "Protocol", "Protocol.String",
		"ProtocolAdvisory", "ProtocolAuto", "ProtocolClaimFirst", "Provider", "Provider.Do", "Rejection", "Rejection.Detail",
		"Rejection.Error", "Rejection.Status", "Rejection.Title", "Rejection.Type", "ScopeFunc", "StoredAnswer", "StoredAnswer.Body",
		"StoredAnswer.Header", "StoredAnswer.Key", "StoredAnswer.Location", "StoredAnswer.OperationID", "StoredAnswer.Scope",
		"StoredAnswer.Status", "SweepResult", "SweepResult.Batches", "SweepResult.ClockSkew", "SweepResult.Deleted",
		"SweepResult.LongestBatch", "SweepResult.MessagesDeleted", "SweepResult.NaturalKeysDeleted", "SweepResult.Tombstoned",
		"SystemClock", "SystemClock.Now", "Tracer", "Tracer.StartEffect", "Tracer.StartOperation", "Tracer.TraceContext",
		"Unauthenticated", "Unauthenticated.Challenge", "Unauthenticated.Detail", "Unauthenticated.Error", "Verifier",
		"Verifier.Verify", "VerifyDone", "VerifyNotDone", "VerifyOutcome", "VerifyUnknown", "Worker", "Worker.Run", "WorkerConfig",
		"WorkerConfig.Backoff", "WorkerConfig.ClaimAhead", "WorkerConfig.Clock", "WorkerConfig.Concurrency", "WorkerConfig.GaugeInterval", "WorkerConfig.ID",
		"WorkerConfig.Lease", "WorkerConfig.Logger", "WorkerConfig.MaxAttempts", "WorkerConfig.Observer", "WorkerConfig.PollInterval",
		"WorkerConfig.Pool", "WorkerConfig.Providers", "WorkerConfig.RecordBatch", "WorkerConfig.RecordDelay", "WorkerConfig.Schema",
		"WorkerConfig.ShutdownTimeout", "WorkerConfig.Tracer",
	}
	if diff := cmp.Diff(want, f.face()); diff != "" {
		t.Errorf("runtime/idem's exported names changed (-want +got):\n%s", diff)
	}
}

// The same holds for runtime/idemimpl, the face of generated code.
func TestGeneratedCodeFaceExposesNoFaultHooks(t *testing.T) {
	f := loadFace(t, "github.com/idemgen/idemgen/runtime/idemimpl")
	f.wantNoFaults(t)
	want := []string{
		"Answer", "AnswerHeader", "Bind", "BindPhased", "BindStatus", "Binding", "Body", "Broker", "BrokerConsumer", "BusinessFunc", "CallStep", "Concurrency",
		"ConcurrencyReject", "ConcurrencyWait", "Contract", "CurrentFunc", "DecodeMultipart", "Effect", "EnforceVersion", "ErrInvalidBody", "FinalStep",
		"FormatParam", "FormatParamList", "HandlerOption", "Header", "JSONBody", "KeySpec", "ListHeader", "LocalStep",
		"MaxGeneratedVersion", "MinGeneratedVersion", "Mount", "NewBrokerConsumer", "NewHandler", "NewPhasedHandler", "NewStatusHandler", "NewTypedHandler",
		"NewWebhookReceiver", "NoOutput", "NotImplemented", "OnUnknown", "OnUnknownHalt", "OnUnknownRetry", "OnUnknownVerify",
		"Operation", "OptionalHeader", "OptionalParam", "Param", "ParamList", "ParamScalar", "PathParamFunc", "Phased", "RawBody",
		"Register", "Request", "Respond", "Response", "Route", "Routes", "StatusClass", "StatusContract", "Step", "Typed", "Webhook",
		"WebhookFunc", "WebhookReceiver", "WithPathParams",
	}
	var got []string
	for _, n := range f.names {
		if !strings.Contains(n, ".") {
			got = append(got, n)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("runtime/idemimpl's exported names changed (-want +got):\n%s", diff)
	}
}

// face returns the package's own names and members, without the members
// of types reached from other packages of the module.
func (f *face) face() []string {
	own := map[string]bool{}
	for _, n := range f.names {
		if !strings.Contains(n, ".") {
			own[n] = true
		}
	}
	var out []string
	for _, n := range f.names {
		if typ, _, ok := strings.Cut(n, "."); !ok || own[typ] {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
