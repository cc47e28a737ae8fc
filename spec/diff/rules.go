package diff

// Rule is one kind of contract change and the level it is reported at.
type Rule struct {
	ID    string
	Level Level
	// Summary names the change in a few words, as docs/diff.md heads it.
	Summary string
}

// Rules lists every change kind diff reports, grouped by what they touch.
// docs/diff.md documents each of them.
var Rules = []Rule{
	{"operation-added", Safe, "an annotated operation added"},
	{"operation-removed", Breaking, "an annotated operation removed"},
	{"operation-route-changed", Breaking, "an operation moved to another method or path (matched by operationId)"},
	{"operation-id-changed", Risky, "an operation's operationId changed"},
	{"idempotency-added", Safe, "x-idempotency added to an operation, key optional"},
	{"idempotency-added-key-required", Risky, "x-idempotency added to an operation, key required"},
	{"idempotency-removed", Breaking, "an operation lost x-idempotency"},

	{"key-location-changed", Breaking, "key.in changed"},
	{"key-name-changed", Breaking, "key.name changed"},
	{"key-made-optional", Breaking, "key.required true to false"},
	{"key-made-required", Risky, "key.required false to true"},
	{"key-max-length-lowered", Breaking, "key.max-length lowered"},
	{"key-max-length-raised", Safe, "key.max-length raised"},

	{"scope-changed", Breaking, "scope changed"},
	{"natural-key-added", Risky, "natural-key added"},
	{"natural-key-removed", Breaking, "natural-key removed"},
	{"natural-key-changed", Breaking, "natural-key fields changed"},

	{"fingerprint-whole-body-to-fields", Breaking, "fingerprint.include added: the whole body becomes a list of fields"},
	{"fingerprint-fields-to-whole-body", Breaking, "fingerprint.include removed: a list of fields becomes the whole body"},
	{"fingerprint-field-added", Breaking, "a pointer added to fingerprint.include"},
	{"fingerprint-field-removed", Breaking, "a pointer removed from fingerprint.include"},
	{"fingerprint-exclude-added", Breaking, "a pointer added to fingerprint.exclude"},
	{"fingerprint-exclude-removed", Breaking, "a pointer removed from fingerprint.exclude"},
	{"fingerprint-unordered-added", Breaking, "a pointer added to fingerprint.unordered"},
	{"fingerprint-unordered-removed", Breaking, "a pointer removed from fingerprint.unordered"},

	{"retention-shortened", Breaking, "retention shortened"},
	{"retention-lengthened", Safe, "retention lengthened"},
	{"tombstone-shortened", Breaking, "tombstone shortened"},
	{"tombstone-lengthened", Safe, "tombstone lengthened"},
	{"concurrency-wait-to-reject", Risky, "concurrency wait to reject"},
	{"concurrency-reject-to-wait", Safe, "concurrency reject to wait"},
	{"wait-timeout-shortened", Risky, "wait-timeout shortened"},
	{"wait-timeout-lengthened", Safe, "wait-timeout lengthened"},
	{"replay-changed", Risky, "replay changed"},
	{"store-failures-added", Risky, "a failure added to store-failures"},
	{"store-failures-removed", Risky, "a failure removed from store-failures"},
	{"mode-changed-to-phased", Risky, "mode atomic to phased"},
	{"mode-changed-to-atomic", Breaking, "mode phased to atomic"},
	{"lease-shortened", Risky, "lease shortened (phased)"},
	{"lease-lengthened", Safe, "lease lengthened (phased)"},

	{"effect-added", Risky, "an effect added"},
	{"effect-removed", Breaking, "an effect removed"},
	{"effect-on-unknown-loosened", Breaking, "an effect's on-unknown halt or verify to retry"},
	{"effect-on-unknown-halt-to-verify", Risky, "an effect's on-unknown halt to verify"},
	{"effect-on-unknown-tightened", Safe, "an effect's on-unknown tightened (retry to verify or halt, verify to halt)"},
	{"effect-payload-changed", Breaking, "an effect's payload schema changed, added or removed"},

	{"step-added", Risky, "a step added (phased)"},
	{"step-removed", Breaking, "a step removed (phased)"},
	{"step-renamed", Breaking, "a step renamed (phased)"},
	{"steps-reordered", Breaking, "steps reordered (phased)"},
	{"step-made-local", Breaking, "a step's external true to false"},
	{"step-made-external", Safe, "a step's external false to true"},
	{"step-on-unknown-loosened", Breaking, "a step's on-unknown loosened (halt to verify or retry, verify to retry)"},
	{"step-on-unknown-tightened", Safe, "a step's on-unknown tightened (retry to verify or halt, verify to halt)"},
	{"step-timeout-beyond-lease", Risky, "a step's timeout lengthened to the lease or beyond"},
	{"step-timeout-shortened", Risky, "a step's timeout shortened"},
	{"step-timeout-lengthened", Safe, "a step's timeout lengthened, still inside the lease"},
	{"step-output-changed", Breaking, "a local step's output schema changed, added or removed"},
	{"step-call-output-changed", Safe, "an external step's output schema changed, added or removed"},

	{"status-route-added", Safe, "a status route (x-idempotency-status) added"},
	{"status-route-removed", Risky, "a status route removed"},
	{"status-route-changed", Risky, "a status route tells another operation, or reads the key from another parameter"},
	{"consumer-broker-changed", Breaking, "a consumer's broker, subject, queue or topic changed, added or removed"},
	{"consumer-name-changed", Breaking, "a consumer's name in the inbox changed: its consumer, or the operationId it defaults to"},
	{"consumer-source-changed", Breaking, "a webhook's source changed"},
	{"consumer-sender-changed", Risky, "a webhook's sender changed"},
	{"consumer-max-attempts-lowered", Risky, "a webhook's max-attempts lowered"},
	{"consumer-max-attempts-raised", Safe, "a webhook's max-attempts raised"},
}

// levels maps each rule id to its level.
var levels = func() map[string]Level {
	m := make(map[string]Level, len(Rules))
	for _, r := range Rules {
		m[r.ID] = r.Level
	}
	return m
}()
