// Package idemotel reports the executor's and the effect worker's events
// as OpenTelemetry metrics through an injected metric.Meter (a no-op meter
// by default). The instruments, their units and attributes are listed in
// docs/metrics.md; every attribute is low-cardinality (operation and
// effect names, event kinds), never a key.
package idemotel
