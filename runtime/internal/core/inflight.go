package core

import "sync"

// inflight is the executor's registry of the operations it is running, by
// scope and key. A duplicate that arrives while this process runs the
// first attempt waits on the first attempt's channel instead of a pool
// connection blocked on the key's lock; once the first attempt has
// finished it claims as usual, and then reads the stored result or takes
// the key freed by a rollback. Duplicates in other processes still meet
// on the key's lock, bounded by wait-timeout.
type inflight struct {
	mu  sync.Mutex
	ops map[inflightKey]chan struct{}
}

type inflightKey struct{ scope, key string }

// enter registers the caller as the running attempt for (scope, key) and
// returns leave, to call once the attempt has finished, and nil; or, when
// another attempt of this process runs, nil and a channel closed when it
// has finished.
func (f *inflight) enter(scope, key string) (leave func(), running <-chan struct{}) {
	k := inflightKey{scope, key}
	f.mu.Lock()
	defer f.mu.Unlock()
	if ch, ok := f.ops[k]; ok {
		return nil, ch
	}
	if f.ops == nil {
		f.ops = map[inflightKey]chan struct{}{}
	}
	ch := make(chan struct{})
	f.ops[k] = ch
	return func() {
		f.mu.Lock()
		delete(f.ops, k)
		f.mu.Unlock()
		close(ch)
	}, nil
}
