package outbox

import (
	"context"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/outbox/internal/sqlcdb"
)

// release hands back effects claimed ahead of a free call slot and not
// called, because one waited a tenth of its lease for a slot (its call
// would have had less than eight tenths) or the worker stopped, in one
// statement (ReleaseEffects): each is due again at its due time before the
// claim, its attempt count given back, and its history row ended as
// released. A row whose lease another worker took over meanwhile is left
// as it is. A statement that fails leaves them to their leases, after
// which they are taken over as attempts whose outcome is unknown.
func (w *Worker) release(ctx context.Context, cs []claimed, why string) {
	var p sqlcdb.ReleaseEffectsParams
	for _, c := range cs {
		p.Scopes = append(p.Scopes, c.scope)
		p.OperationIds = append(p.OperationIds, c.operationID)
		p.Seqs = append(p.Seqs, c.seq)
		p.FencingTokens = append(p.FencingTokens, c.token)
		p.DueAts = append(p.DueAts, c.dueAt)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.cfg.Lease/10+time.Second)
	defer cancel()
	rows, err := w.bounded(w.cfg.Lease/10).ReleaseEffects(ctx, p)
	if err != nil {
		w.cfg.Logger.Error("idem: handing back effects claimed ahead and not called; their leases will hand them on",
			"effects", len(cs), "why", why, "err", err)
		return
	}
	w.cfg.Logger.Info("idem: handed back effects claimed ahead and not called", "effects", len(cs),
		"released", len(rows), "why", why)
}
