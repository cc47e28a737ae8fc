package generator

import (
	"bytes"
	"fmt"
	"strings"
)

// diffContext is how many unchanged lines surround each hunk.
const diffContext = 3

// Diff returns a unified diff that turns old into new, with the file names
// in its --- and +++ lines, or "" when they are equal. It is used by
// generate --check and by golden tests.
func Diff(oldName, newName string, old, new []byte) string {
	if bytes.Equal(old, new) {
		return ""
	}
	a, b := splitLines(old), splitLines(new)
	ops := editScript(a, b)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)
	for _, h := range hunks(ops) {
		writeHunk(&out, h, a, b)
	}
	return out.String()
}

// splitLines splits text into lines that keep their "\n"; a last line
// without one is marked, as diff does.
func splitLines(text []byte) []string {
	var lines []string
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			lines = append(lines, string(text)+"\n\\ No newline at end of file\n")
			break
		}
		lines = append(lines, string(text[:i+1]))
		text = text[i+1:]
	}
	return lines
}

// opKind is one step of an edit script.
type opKind byte

const (
	opEqual opKind = iota
	opDelete
	opInsert
)

// edit is one line of an edit script: equal lines carry both indexes.
type edit struct {
	kind opKind
	a, b int // line index in old and new
}

// editScript computes a shortest edit script with Myers' O(ND) algorithm.
func editScript(a, b []string) []edit {
	n, m := len(a), len(b)
	max := n + m
	offset := max + 1
	v := make([]int, 2*max+2)
	var trace [][]int
	for d := 0; d <= max; d++ {
		snapshot := make([]int, len(v))
		copy(snapshot, v)
		trace = append(trace, snapshot)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[offset+k-1] < v[offset+k+1]) {
				x = v[offset+k+1]
			} else {
				x = v[offset+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[offset+k] = x
			if x >= n && y >= m {
				return backtrack(trace, offset, n, m)
			}
		}
	}
	return nil
}

// backtrack walks the saved frontiers from the end to recover the script.
func backtrack(trace [][]int, offset, x, y int) []edit {
	var rev []edit
	for d := len(trace) - 1; d >= 0; d-- {
		v := trace[d]
		k := x - y
		var prevK int
		if k == -d || (k != d && v[offset+k-1] < v[offset+k+1]) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := v[offset+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x, y = x-1, y-1
			rev = append(rev, edit{opEqual, x, y})
		}
		if d > 0 {
			if x == prevX {
				rev = append(rev, edit{opInsert, x, prevY})
			} else {
				rev = append(rev, edit{opDelete, prevX, y})
			}
		}
		x, y = prevX, prevY
	}
	ops := make([]edit, len(rev))
	for i, e := range rev {
		ops[len(rev)-1-i] = e
	}
	return ops
}

// hunks groups an edit script into runs of changes with their context.
func hunks(ops []edit) [][]edit {
	var out [][]edit
	for i := 0; i < len(ops); {
		if ops[i].kind == opEqual {
			i++
			continue
		}
		start := max(i-diffContext, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != opEqual {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == opEqual {
				run++
			}
			if run == len(ops) || run-end > 2*diffContext {
				end = min(end+diffContext, len(ops))
				break
			}
			end = run
		}
		out = append(out, ops[start:end])
		i = end
	}
	return out
}

// writeHunk prints one hunk with its @@ header.
func writeHunk(out *strings.Builder, h []edit, a, b []string) {
	aStart, bStart := h[0].a, h[0].b
	var aLen, bLen int
	for _, e := range h {
		switch e.kind {
		case opEqual:
			aLen++
			bLen++
		case opDelete:
			aLen++
		case opInsert:
			bLen++
		}
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
	for _, e := range h {
		switch e.kind {
		case opEqual:
			out.WriteString(" " + a[e.a])
		case opDelete:
			out.WriteString("-" + a[e.a])
		case opInsert:
			out.WriteString("+" + b[e.b])
		}
	}
}

// hunkRange formats a hunk's line range as unified diff does: 1-based, and
// an empty range names the line before it.
func hunkRange(start, length int) string {
	if length == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if length == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, length)
}
