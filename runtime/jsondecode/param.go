package jsondecode

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// param is the parameter being checked.
type param struct{ in, name string }

// Param starts checking a path, query or header parameter that the
// request holds n times, its first value being value: the check methods
// report at it until EndParams. It reports a required parameter that is
// missing, one sent more than once (which of its values the client meant
// is not for the server to guess), and a value PostgreSQL's text cannot
// hold, and returns the value and whether there is one to check. A path
// parameter with an empty value is missing: that is what a router gives
// for a wildcard the path lacks.
func (d *Decoder) Param(in, name, value string, n int, required bool) (string, bool) {
	d.param = &param{in, name}
	d.bad = false
	if in == "path" && value == "" {
		n = 0
	}
	switch {
	case n == 0 && required:
		d.refuse("is required")
		return "", false
	case n == 0:
		return "", false
	case n > 1:
		d.refuse("is sent " + strconv.Itoa(n) + " times: it takes one value, send it once")
		return "", false
	case !utf8.ValidString(value):
		d.refuse("must be valid UTF-8")
		return "", false
	}
	for i := 0; i < len(value); i++ {
		if value[i] == 0 {
			d.refuse("must not contain NUL")
			return "", false
		}
	}
	return value, true
}

// EndParams ends the parameters: what follows reports into the body.
func (d *Decoder) EndParams() {
	d.param = nil
	d.bad = false
}

// ParamInt reads a parameter as a decimal integer within [lo, hi].
func (d *Decoder) ParamInt(s string, lo, hi int64) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case err != nil:
		d.refuse("must be an integer")
		return 0
	case n < lo:
		d.refuse("must be at least " + strconv.FormatInt(lo, 10))
		return 0
	case n > hi:
		d.refuse("must be at most " + strconv.FormatInt(hi, 10))
		return 0
	}
	return n
}

// ParamFloat reads a parameter as a number.
func (d *Decoder) ParamFloat(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		d.refuse("must be a number")
		return 0
	}
	return f
}

// ParamBool reads a parameter as true or false.
func (d *Decoder) ParamBool(s string) bool {
	switch s {
	case "true":
		return true
	case "false":
		return false
	}
	d.refuse("must be true or false")
	return false
}
