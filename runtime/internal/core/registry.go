package core

import (
	"maps"
	"sync"
)

// registry holds what an executor's users register by name (the
// completer's resumers, Maintain's message redrivers); safe for concurrent
// use, its zero value empty.
type registry[V any] struct {
	mu sync.Mutex
	m  map[string]V
}

// set registers v under name, replacing what was there.
func (r *registry[V]) set(name string, v V) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]V{}
	}
	r.m[name] = v
}

// registered returns a copy of what is registered, by name.
func (r *registry[V]) registered() map[string]V {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.m)
}
