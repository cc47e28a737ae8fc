package outbox

// ProbeWindow is probeWindow, for the fairness test's bound.
const ProbeWindow = probeWindow

// AheadClaim is aheadClaim, for the bound on a worker's claim sizes.
const AheadClaim = aheadClaim
