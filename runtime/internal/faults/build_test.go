package faults_test

import (
	"context"
	"errors"
	"testing"

	"github.com/idemgen/idemgen/runtime/internal/faults"
)

func TestHold(t *testing.T) {
	h := faults.NewHold()
	passed := make(chan error)
	go func() { passed <- h.Hook(context.Background(), "") }()
	<-h.Reached()
	select {
	case err := <-passed:
		t.Fatalf("passed the hold before Release: %v", err)
	default:
	}
	h.Release()
	if err := <-passed; err != nil {
		t.Errorf("released hook: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h2 := faults.NewHold()
	if err := h2.Hook(ctx, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("hook with a cancelled context: %v, want context.Canceled", err)
	}
}

func TestFailFirstAndChain(t *testing.T) {
	f := faults.Chain(nil, faults.FailFirst(2))
	for i, want := range []error{faults.ErrInjected, faults.ErrInjected, nil, nil} {
		if err := f(context.Background(), ""); !errors.Is(err, want) && !(err == nil && want == nil) {
			t.Errorf("call %d: %v, want %v", i, err, want)
		}
	}
}

func TestRunWrapsTheHookErrorWithItsPoint(t *testing.T) {
	var got string
	h := faults.Hooks{AfterBusiness: func(_ context.Context, id string) error { got = id; return faults.ErrInjected }}
	if err := h.Run(context.Background(), faults.AfterClaim, "op-1"); err != nil {
		t.Fatalf("a point without a hook: %v", err)
	}
	err := h.Run(context.Background(), faults.AfterBusiness, "op-1")
	var fe *faults.Error
	if !errors.As(err, &fe) || fe.Point != faults.AfterBusiness || !errors.Is(err, faults.ErrInjected) || got != "op-1" {
		t.Fatalf("Run = %v (operation %q), want a *faults.Error at after-business wrapping ErrInjected for op-1", err, got)
	}
}
