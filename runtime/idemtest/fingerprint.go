package idemtest

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"time"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/idemimpl"
)

// fingerprintRounds is how many random requests CheckFingerprint tries.
const fingerprintRounds = 300

// CheckFingerprint is the property test behind every generated typed
// fingerprint: for random requests of type T it requires that sum (the
// generated, reflection-free fingerprint) equals the runtime's generic
// c.Fingerprint.Sum of the request's JSON encoding, byte for byte. It
// returns an error describing the first request where they differ.
func CheckFingerprint[T any](c idemimpl.Contract, sum func(*T, map[string]string) (fingerprint.Sum, error)) error {
	r := rand.New(rand.NewPCG(uint64(len(c.Operation)), 8785))
	for i := range fingerprintRounds {
		var v T
		fill(r, reflect.ValueOf(&v).Elem(), 0)
		body, err := json.Marshal(&v)
		if err != nil {
			return fmt.Errorf("round %d: encoding the random request: %w", i, err)
		}
		params := make(map[string]string, len(c.PathParams))
		for _, name := range c.PathParams {
			params[name] = randomString(r)
		}
		want, err := c.Fingerprint.Sum(fingerprint.Request{Method: c.Method, Route: c.Route, PathParams: params, Body: body})
		if err != nil {
			return fmt.Errorf("round %d: the runtime's fingerprint of %s: %w", i, body, err)
		}
		got, err := sum(&v, params)
		if err != nil {
			return fmt.Errorf("round %d: the typed fingerprint of %s: %w", i, body, err)
		}
		if got != want {
			return fmt.Errorf("round %d: typed fingerprint %s, runtime fingerprint %s, for the request %s with path parameters %v", i, got, want, body, params)
		}
	}
	return nil
}

// maxDepth bounds how deep fill builds nested values, so recursive types
// terminate.
const maxDepth = 4

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	timeType       = reflect.TypeFor[time.Time]()
)

// fill sets v to a random value of its type, the way a client could send
// it: optional (pointer, slice, map) parts are sometimes absent.
func fill(r *rand.Rand, v reflect.Value, depth int) {
	switch {
	case v.Type() == rawMessageType:
		if b, err := json.Marshal(randomJSON(r, depth)); err == nil {
			v.SetBytes(b)
		}
		return
	case v.Type() == timeType:
		sec := r.Int64N(4102444800) // 1970 to 2100
		v.Set(reflect.ValueOf(time.Unix(sec, r.Int64N(1e9)).UTC()))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if depth >= maxDepth || r.IntN(4) == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(r, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(r, v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		if depth >= maxDepth || r.IntN(5) == 0 {
			return
		}
		n := r.IntN(4)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fill(r, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		if depth >= maxDepth || r.IntN(5) == 0 {
			return
		}
		m := reflect.MakeMap(v.Type())
		for range r.IntN(4) {
			k := reflect.New(v.Type().Key()).Elem()
			k.SetString(randomString(r))
			e := reflect.New(v.Type().Elem()).Elem()
			fill(r, e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.String:
		v.SetString(randomString(r))
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		bits := v.Type().Bits()
		v.SetInt(r.Int64() >> (64 - bits) >> r.IntN(bits))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(randomFloat(r))
	}
}

// randomFloat returns a finite number: small integers, fractions and
// extreme magnitudes, the cases number formatting gets wrong.
func randomFloat(r *rand.Rand) float64 {
	switch r.IntN(4) {
	case 0:
		return float64(r.IntN(2000) - 1000)
	case 1:
		return r.NormFloat64() * 1e3
	default:
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0.5
		}
		return f
	}
}

// alphabet mixes ASCII, characters JSON escapes, and characters outside
// the Basic Multilingual Plane (ordered differently in UTF-16 than in
// UTF-8).
var alphabet = []string{"a", "b", "Z", "0", " ", "\"", "\\", "/", "<", "&", "\n", "\t", "\u0001", "é", "€", "\u2028", "\ufb33", "😀", "𝄞"}

func randomString(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(8) {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// randomJSON builds a random JSON value for free-form fields.
func randomJSON(r *rand.Rand, depth int) any {
	k := r.IntN(6)
	if depth >= maxDepth {
		k %= 4
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return randomFloat(r)
	case 3:
		return randomString(r)
	case 4:
		out := make([]any, r.IntN(3))
		for i := range out {
			out[i] = randomJSON(r, depth+1)
		}
		return out
	}
	out := map[string]any{}
	for range r.IntN(3) {
		out[randomString(r)] = randomJSON(r, depth+1)
	}
	return out
}
