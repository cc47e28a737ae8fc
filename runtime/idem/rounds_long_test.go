//go:build long

package idem_test

// duplicateRounds is how many rounds of 64 duplicates
// TestConcurrentDuplicatesExecuteOnce sends in the long build: 12,800
// requests per protocol.
const duplicateRounds = 200
