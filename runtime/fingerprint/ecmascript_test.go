package fingerprint

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
)

// These tests use Node.js, where present, as an independent oracle: its
// Number::toString and JSON.stringify are the algorithms RFC 8785 defines
// the canonical form by, and sorting member names with the default
// Array.prototype.sort compares UTF-16 code units.

// jcsScript is the usual few-line JavaScript JCS (JSON.stringify for
// primitives and names, the default sort for member order), applied to every
// text of a JSON array on stdin.
const jcsScript = `
const canonicalize = (o) => {
  if (o === null || typeof o !== 'object') return JSON.stringify(o);
  if (Array.isArray(o)) return '[' + o.map(canonicalize).join(',') + ']';
  return '{' + Object.keys(o).sort().map((k) => JSON.stringify(k) + ':' + canonicalize(o[k])).join(',') + '}';
};
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(input.map((t) => canonicalize(JSON.parse(t)))));
`

// numberScript prints String(x) for every double given as 16 hex digits.
const numberScript = `
const lines = require('fs').readFileSync(0, 'utf8').trim().split('\n');
const buf = Buffer.alloc(8);
process.stdout.write(lines.map((h) => { buf.write(h, 'hex'); return String(buf.readDoubleBE(0)); }).join('\n'));
`

func runNode(t *testing.T, script string, stdin []byte) []byte {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: no ECMAScript oracle on this machine")
	}
	cmd := exec.Command(node, "-e", script)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	return out
}

func TestNumbersAgainstECMAScript(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var floats []float64
	for len(floats) < 50000 {
		if f := randFloat(r); !math.IsNaN(f) && !math.IsInf(f, 0) {
			floats = append(floats, f)
		}
	}
	var in bytes.Buffer
	var b [8]byte
	for _, f := range floats {
		binary.BigEndian.PutUint64(b[:], math.Float64bits(f))
		in.WriteString(hex.EncodeToString(b[:]))
		in.WriteByte('\n')
	}
	want := strings.Split(string(runNode(t, numberScript, in.Bytes())), "\n")
	if len(want) != len(floats) {
		t.Fatalf("node returned %d numbers for %d", len(want), len(floats))
	}
	bad := 0
	for i, f := range floats {
		if got := string(appendNumber(nil, f)); got != want[i] {
			t.Errorf("appendNumber(%x) = %s, ECMAScript %s", math.Float64bits(f), got, want[i])
			if bad++; bad > 10 {
				t.FailNow()
			}
		}
	}
}

func TestCanonicalizeAgainstECMAScript(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var texts []string
	for range 3000 {
		s := reserializer{r: r}
		s.value(randValue(r, 4), 0)
		texts = append(texts, string(s.buf))
	}
	in, err := json.Marshal(texts)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	if err := json.Unmarshal(runNode(t, jcsScript, in), &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(texts) {
		t.Fatalf("node returned %d texts for %d", len(want), len(texts))
	}
	for i, text := range texts {
		got, err := Canonicalize([]byte(text))
		if err != nil {
			t.Fatalf("Canonicalize(%s): %v", text, err)
		}
		if string(got) != want[i] {
			t.Fatalf("Canonicalize(%s)\n got %s\nwant %s (ECMAScript)", text, got, want[i])
		}
	}
}
