package faults

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// Hold is a fault point that stops every request reaching it until
// Release: put Hold.Hook in a Hooks field to hold a first request
// mid-transaction while a test sends its duplicates.
type Hold struct {
	reached     chan struct{}
	reachedOnce sync.Once
	release     chan struct{}
	releaseOnce sync.Once
}

// NewHold returns a closed gate.
func NewHold() *Hold {
	return &Hold{reached: make(chan struct{}), release: make(chan struct{})}
}

// Hook blocks until Release or until ctx ends (then it fails with the
// context's error, rolling the transaction back).
func (h *Hold) Hook(ctx context.Context, _ string) error {
	h.reachedOnce.Do(func() { close(h.reached) })
	select {
	case <-h.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Reached is closed once the first request has reached the hook.
func (h *Hold) Reached() <-chan struct{} { return h.reached }

// Release lets every held and future request pass.
func (h *Hold) Release() { h.releaseOnce.Do(func() { close(h.release) }) }

// ErrInjected is the error returned by the hooks FailFirst builds.
var ErrInjected = errors.New("faults: injected fault")

// FailFirst returns a hook that fails the first n calls with ErrInjected
// and lets later calls pass. At AfterCommit that loses the
// response of a committed operation.
func FailFirst(n int) Hook {
	var calls atomic.Int64
	return func(context.Context, string) error {
		if calls.Add(1) <= int64(n) {
			return ErrInjected
		}
		return nil
	}
}

// Chain returns a hook that runs hooks in order and stops at the first
// error; nil hooks are skipped.
func Chain(hooks ...Hook) Hook {
	return func(ctx context.Context, operationID string) error {
		for _, h := range hooks {
			if h == nil {
				continue
			}
			if err := h(ctx, operationID); err != nil {
				return err
			}
		}
		return nil
	}
}
