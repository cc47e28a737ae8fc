package outbox

// ProbeWindow is probeWindow, for the fairness test's bound.
const ProbeWindow = probeWindow

// AheadClaim is defaultClaimAhead, for the bound on a default worker's
// claim sizes.
const AheadClaim = defaultClaimAhead
