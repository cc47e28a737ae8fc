package outbox

// ProbeWindow is probeWindow, for the fairness test's bound.
const ProbeWindow = probeWindow
