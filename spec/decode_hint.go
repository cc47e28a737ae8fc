package spec

import (
	"fmt"
	"strings"
)

// didYouMean returns a hint naming the known field closest to name, such
// as ` (did you mean "retention"?)`, or "" when none is close enough to be
// a plausible typo.
func didYouMean(name string, known []string) string {
	best, bestDist := "", -1
	for _, k := range known {
		dist := editDistance(strings.ToLower(name), k)
		if bestDist < 0 || dist < bestDist {
			best, bestDist = k, dist
		}
	}
	if bestDist < 0 || bestDist > max(2, len(best)/3) {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the Levenshtein distance between a and b, counted in
// bytes: field names are ASCII.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
