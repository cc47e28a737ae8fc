package spec

import (
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	good := map[string]time.Duration{
		"72h":    72 * time.Hour,
		"30d":    30 * 24 * time.Hour,
		"1d12h":  36 * time.Hour,
		"90m":    90 * time.Minute,
		"1.5d":   36 * time.Hour,
		"1h30m":  90 * time.Minute,
		"12h1d":  36 * time.Hour,
		"500ms":  500 * time.Millisecond,
		"-1d":    -24 * time.Hour,
		"0":      0,
		"0d":     0,
		"2d3h4m": 51*time.Hour + 4*time.Minute,
	}
	for in, want := range good {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	bad := map[string]error{
		"":                   errDurationSyntax,
		"d":                  errDurationSyntax,
		"3 days":             errDurationSyntax,
		"1y":                 errDurationSyntax,
		"1d-2h":              errDurationSyntax,
		"--1h":               errDurationSyntax,
		"72":                 errDurationSyntax,
		".d":                 errDurationSyntax,
		"9999999999d":        errDurationRange,
		"106752d":            errDurationRange,
		"106000d99999999h":   errDurationRange,
		"99999999999999999h": errDurationRange,
	}
	for in, want := range bad {
		if got, err := ParseDuration(in); err != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want error %v", in, got, err, want)
		}
	}
}
