package spec

import (
	"fmt"
	"regexp"
)

// What the rules require of the names of effects and of steps alike: each
// becomes a Go name and part of a key (an effect key, a step key), so it
// is a lower-case identifier and unique in its operation.

// identifierPattern is what an effect or step name must match.
var identifierPattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// reportDuplicates reports each of names that repeats an earlier one, at
// the later one. path is the field path of the i-th name, a format that
// takes i; message words a finding from the name and the line of its
// first declaration.
func (r *ruleRun) reportDuplicates(names []Field[string], path string, message func(name string, firstLine int) string, hint string) {
	first := map[string]Position{}
	for i, n := range names {
		if at, ok := first[n.Value]; ok {
			r.report(n.Pos, fmt.Sprintf(path, i), message(n.Value, at.Line), hint)
			continue
		}
		first[n.Value] = n.Pos
	}
}

// reportNonIdentifiers reports each of names that does not match
// identifierPattern; path is as for reportDuplicates.
func (r *ruleRun) reportNonIdentifiers(names []Field[string], path string, message func(name string) string, hint string) {
	for i, n := range names {
		if !identifierPattern.MatchString(n.Value) {
			r.report(n.Pos, fmt.Sprintf(path, i), message(n.Value), hint)
		}
	}
}
