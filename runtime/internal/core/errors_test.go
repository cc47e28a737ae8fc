package core_test

import (
	"errors"
	"testing"

	"github.com/idemgen/idemgen/runtime/internal/core"
)

// Refusals wrap their sentinels, so callers of the executor can use
// errors.Is; the HTTP mapping is covered by the handler tests.
func TestRefusalErrorUnwraps(t *testing.T) {
	err := error(&core.RefusalError{Err: core.ErrExpired, OperationID: "x"})
	if !errors.Is(err, core.ErrExpired) || errors.Is(err, core.ErrInProgress) {
		t.Errorf("errors.Is on %v does not follow the sentinel", err)
	}
	var ref *core.RefusalError
	if !errors.As(err, &ref) || ref.OperationID != "x" {
		t.Errorf("errors.As: %+v", ref)
	}
}
