package outbox

import "time"

// schedule is Run's account of the effects it holds: the calls running,
// the effects claimed and waiting for a call slot, and the claim
// statement in flight, with what tells when to send the next one.
type schedule struct {
	running  int
	waiting  []claimed        // oldest claim first
	claims   chan claimResult // the claim statements' results, maxClaimsInFlight buffered
	inFlight int              // claim statements sent whose result has not been taken
	asked    int              // effects those statements asked for
	backlog  bool             // the last claim came back full: more may be due
	ended    bool             // a call ended since the last claim returned
	polled   bool             // the poll came since the last claim was sent
	// gatherFrom is when a claim for fewer than Concurrency effects
	// started to wait for more slots to free (zero: none waits), and
	// aheadFrom when claiming ahead may resume after an effect claimed
	// ahead waited too long for a slot.
	gatherFrom, aheadFrom time.Time
}

// maxClaimsInFlight is how many claim statements a worker has in flight
// at most: two, so that while one waits for its commit the next is
// already on its way, and a worker whose calls end at once is bound by
// the rate of claims rather than by one claim's round trip.
const maxClaimsInFlight = 2

// defaultClaimAhead is Config.ClaimAhead's default, how many times
// Concurrency effects a claim asks for while a backlog lasts: with two in
// flight a worker then holds up to six times Concurrency, running or
// waiting for a slot. Claims of Concurrency, or of twice that, left one
// default worker below twice the bare SKIP LOCKED loop in some passes of
// BenchmarkEffects on a busy machine; claims of three times did not
// (docs/benchmarks.md).
const defaultClaimAhead = 3

// claimResult is what a claim statement returned for asked effects.
type claimResult struct {
	out   []claimed
	err   error
	asked int
}

// nextClaim tells how many effects to claim now, if any, and otherwise
// when to look again (zero: when something happens). With no backlog (the
// last claim came back short) the worker claims on its poll, for its free
// slots. While a backlog lasts it claims once a call has ended since the
// last claim returned (not before: a worker whose calls hang claims no
// more than they hold), ahead of its free slots: up to ClaimAhead times
// Concurrency a claim, and twice that held, running, waiting for a slot or
// asked for by a claim in flight (ClaimAhead 1: Concurrency, no more than
// the free slots), so that the next effects are claimed
// while calls run and a slot that frees finds one waiting. Claiming ahead
// stops while aheadFrom is to come. Either way a claim waits until it can
// ask for its most, or for at most a tenth of PollInterval, so that claims
// are of many effects rather than one each time a call ends.
func (w *Worker) nextClaim(s *schedule, now time.Time) (n int, at time.Time) {
	if s.inFlight >= maxClaimsInFlight {
		return 0, time.Time{}
	}
	limit, most, trigger := w.cfg.Concurrency, w.cfg.Concurrency, s.polled
	if s.backlog {
		trigger = s.ended
		if !now.Before(s.aheadFrom) && w.cfg.ClaimAhead > 1 {
			most = w.cfg.ClaimAhead * w.cfg.Concurrency
			limit = maxClaimsInFlight * most
		}
	}
	room := min(limit-s.running-len(s.waiting)-s.asked, most)
	if room <= 0 || !trigger {
		return 0, time.Time{}
	}
	if room >= most {
		return room, time.Time{}
	}
	if s.gatherFrom.IsZero() {
		s.gatherFrom = now
	}
	if until := s.gatherFrom.Add(w.cfg.PollInterval / 10); now.Before(until) {
		return 0, until
	}
	return room, time.Time{}
}

// stale takes out of the waiting effects those that have waited limit or
// longer for a call slot.
func (s *schedule) stale(now time.Time, limit time.Duration) []claimed {
	i := 0
	for i < len(s.waiting) && !now.Before(s.waiting[i].claimedAt.Add(limit)) {
		i++
	}
	stale := s.waiting[:i:i]
	s.waiting = s.waiting[i:]
	return stale
}

// staleAt is when the oldest waiting effect will have waited limit (zero:
// none waits).
func (s *schedule) staleAt(limit time.Duration) time.Time {
	if len(s.waiting) == 0 {
		return time.Time{}
	}
	return s.waiting[0].claimedAt.Add(limit)
}
