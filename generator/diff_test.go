package generator

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDiffOutput(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	new := "a\nb\nc\nD\ne\nf\ng\nh\ni\nj\nk\n"
	want := `--- old
+++ new
@@ -1,10 +1,11 @@
 a
 b
 c
-d
+D
 e
 f
 g
 h
 i
 j
+k
`
	if diff := cmp.Diff(want, Diff("old", "new", []byte(old), []byte(new))); diff != "" {
		t.Errorf("Diff mismatch (-want +got):\n%s", diff)
	}
	if got := Diff("a", "b", []byte(old), []byte(old)); got != "" {
		t.Errorf("Diff of equal texts = %q, want empty", got)
	}
}

func TestDiffMissingNewline(t *testing.T) {
	got := Diff("old", "new", []byte("x\ny"), []byte("x\ny\n"))
	want := "--- old\n+++ new\n@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+y\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Diff mismatch (-want +got):\n%s", diff)
	}
}

// TestDiffApplies checks on random texts that applying the hunks to the old
// text gives the new one.
func TestDiffApplies(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		old, new := randomText(r), randomText(r)
		d := Diff("old", "new", []byte(old), []byte(new))
		got, err := applyDiff(old, d)
		if err != nil {
			t.Fatalf("case %d: %v\n%s", i, err, d)
		}
		if got != new {
			t.Fatalf("case %d: applying the diff gives %q, want %q\n%s", i, got, new, d)
		}
	}
}

func randomText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(30) {
		fmt.Fprintf(&b, "line %d\n", r.IntN(6))
	}
	return b.String()
}

// applyDiff applies a unified diff of newline-terminated texts.
func applyDiff(old, d string) (string, error) {
	if d == "" {
		return old, nil
	}
	src := splitLines([]byte(old))
	var out []string
	next := 0
	lines := strings.SplitAfter(d, "\n")
	for i := 2; i < len(lines) && lines[i] != ""; i++ {
		line := lines[i]
		if strings.HasPrefix(line, "@@") {
			field := strings.Fields(line)[1][1:]
			start, _, _ := strings.Cut(field, ",")
			n, err := strconv.Atoi(start)
			if err != nil {
				return "", err
			}
			if !strings.HasSuffix(field, ",0") {
				n--
			}
			out = append(out, src[next:n]...)
			next = n
			continue
		}
		switch line[0] {
		case ' ':
			out = append(out, src[next])
			next++
		case '-':
			next++
		case '+':
			out = append(out, line[1:])
		default:
			return "", fmt.Errorf("bad line %q", line)
		}
	}
	out = append(out, src[next:]...)
	return strings.Join(out, ""), nil
}
