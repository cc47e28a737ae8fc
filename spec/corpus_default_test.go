//go:build !long

package spec

// corpusDirOrEmpty is "": the default build reads no corpus, whose specs
// take minutes to load and compare; go test -tags long reads it (see
// corpus_long_test.go).
func corpusDirOrEmpty() string { return "" }
