package spec

import "fmt"

// The rules of a webhook's consumer: its retention against its sender's
// retry horizon.

var ruleRetentionUnderSenderHorizon = Rule{
	ID:       "IDEM041",
	Name:     "retention-under-sender-horizon",
	Severity: SeverityWarning,
	Summary:  "a webhook's retention shorter than its sender's retry horizon",
	check: func(r *ruleRun) {
		if r.c == nil || r.c.Consumer == nil || !r.c.Consumer.Sender.Set {
			return
		}
		sender := r.c.Consumer.Sender.Value
		horizon := sender.Horizon()
		if r.c.Retention.Value >= horizon {
			return
		}
		r.report(r.c.Retention.Pos, "x-idempotency.retention",
			fmt.Sprintf("retention %s is shorter than the retry horizon of a %s sender, %s: a retry that arrives after the inbox forgot the webhook's id runs its handler a second time",
				FormatDuration(r.c.Retention.Value), sender, FormatDuration(horizon)),
			fmt.Sprintf("make retention at least %s, the sender's horizon, with a margin for its clock and queues", FormatDuration(horizon)))
	},
}
