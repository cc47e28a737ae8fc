package idem_test

import (
	"slices"
	"sync"

	"github.com/idemgen/idemgen/runtime/idem"
)

// recorder is an idem.Observer that keeps the kinds it saw.
type recorder struct {
	mu     sync.Mutex
	events []idem.Event
}

func (r *recorder) Observe(e idem.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) kinds() []idem.EventKind {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ks []idem.EventKind
	for _, e := range r.events {
		ks = append(ks, e.Kind)
	}
	return ks
}

func (r *recorder) all() []idem.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

func equalKinds(a, b []idem.EventKind) bool { return slices.Equal(a, b) }
