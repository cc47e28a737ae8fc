//go:build !long

package idem_test

// duplicateRounds is how many rounds of 64 duplicates
// TestConcurrentDuplicatesExecuteOnce sends: 1,600 requests per protocol in
// the default suite, which has to run in minutes; go test -tags long sends
// the 200 rounds of the claim (rounds_long_test.go).
const duplicateRounds = 25
