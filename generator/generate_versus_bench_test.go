//go:build long && linux

package generator

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// versusCorpus are the specs issue 24 compares generation time on.
var versusCorpus = []struct{ file, pkg string }{
	{"adyen-CheckoutService-v72.json", "adyen72"},
	{"twilio-twilio_api_v2010.json", "twilio"},
}

// oapiStrictConfig is the oapi-codegen configuration the comparison runs
// (models, a net/http server and its strict, typed layer: the closest it
// has to what idemgen generates); %s is the package name.
const oapiStrictConfig = "package: %s\ngenerate:\n  models: true\n  std-http-server: true\n  strict-server: true\noutput: x.gen.go\n"

// BenchmarkGenerateVersusOapiCodegen interleaves, in every iteration, one
// idemgen generate, one idemgen check and one oapi-codegen (the binary
// OAPI_CODEGEN names, v2.8.2 in docs/benchmarks.md) on the same copy of
// each spec in versusCorpus, each on a fresh output directory, so that
// both tools see the same machine minute by minute. It reports the
// medians of each command's wall and CPU (user+sys) time and of the
// per-iteration ratios to oapi-codegen's. A warm-up round runs first,
// untimed. Run the built test binary as root under `chrt -f 50` to take
// both cores ahead of every other process (the children inherit the
// policy). Build it first, without chrt: the compiler and vet under
// SCHED_FIFO on two cores spun for 33 minutes without finishing.
//
//	go test -tags long -c -o /tmp/gen.test ./generator
//	(cd generator && IDEMGEN_BIN=/tmp/idemgen OAPI_CODEGEN=/tmp/bin/oapi-codegen chrt -f 50 \
//	  /tmp/gen.test -test.run '^$' -test.bench GenerateVersusOapiCodegen -test.benchtime 10x)
func BenchmarkGenerateVersusOapiCodegen(b *testing.B) {
	oapi, idemgen, inputs := versusInputs(b, versusCorpus)
	for _, in := range inputs {
		c, tmp, spec, overlay := in.corpus, in.dir, in.spec, in.overlay
		b.Run(c.pkg, func(b *testing.B) {
			round := func() (gen, check, ref timing) {
				out := b.TempDir()
				gen = timeCommand(b, out, idemgen, "generate", "--spec", spec, "--overlay", overlay, "--out", out, "--package", c.pkg, "--tests")
				check = timeCommand(b, tmp, idemgen, "check", spec, "--overlay", overlay)
				ref = timeCommand(b, oapiDir(b, c.pkg), oapi, "-config", "cfg.yaml", spec)
				return gen, check, ref
			}
			round()
			var gens, checks, refs []timing
			for b.Loop() {
				gen, check, ref := round()
				gens, checks, refs = append(gens, gen), append(checks, check), append(refs, ref)
			}
			reportTimings(b, "generate", gens, refs)
			reportTimings(b, "check", checks, refs)
			refWalls := make([]float64, len(refs))
			for i, r := range refs {
				refWalls[i] = r.wall.Seconds() * 1000
			}
			b.ReportMetric(median(refWalls), "oapi-wall-ms")
		})
	}
}

// versusInput is one spec of a comparison with oapi-codegen: its
// key-header copy and its annotation overlay, both in dir.
type versusInput struct {
	corpus             struct{ file, pkg string }
	dir, spec, overlay string
}

// versusInputs returns the oapi-codegen binary OAPI_CODEGEN names, an
// idemgen binary and the inputs of the specs of corpus, skipping b when
// either the binary or the corpus is missing.
func versusInputs(b *testing.B, corpus []struct{ file, pkg string }) (oapi, idemgen string, inputs []versusInput) {
	oapi = os.Getenv("OAPI_CODEGEN")
	if oapi == "" {
		b.Skip("OAPI_CODEGEN names no oapi-codegen binary: GOBIN=/tmp/bin go install github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2")
	}
	dir := corpusDir(b)
	if dir == "" {
		b.Skip("no shared/corpus directory above the package")
	}
	idemgen = idemgenBinary(b)
	for _, c := range corpus {
		src := filepath.Join(dir, c.file)
		tmp := b.TempDir()
		overlay := corpusOverlay(b, loadCorpus(b, src), tmp)
		inputs = append(inputs, versusInput{corpus: c, dir: tmp, spec: documentKeyHeader(b, src, tmp), overlay: overlay})
	}
	return oapi, idemgen, inputs
}

// timing is one command's wall and CPU (user+sys) time.
type timing struct{ wall, cpu time.Duration }

// timeCommand runs name with args in dir and returns its timing; a command
// that fails fails the benchmark with its output.
func timeCommand(b *testing.B, dir, name string, args ...string) timing {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	if err != nil {
		b.Fatalf("%s %v: %v\n%s", filepath.Base(name), args, err, truncateLines(string(out), 10))
	}
	return timing{wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
}

// oapiDir returns a fresh directory holding oapi-codegen's configuration
// for package pkg, where it writes its output.
func oapiDir(b *testing.B, pkg string) string {
	b.Helper()
	dir := b.TempDir()
	cfg := []byte(fmt.Sprintf(oapiStrictConfig, pkg))
	if err := os.WriteFile(filepath.Join(dir, "cfg.yaml"), cfg, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// reportTimings reports the median wall time of what's runs in ms and the
// medians of their per-iteration wall and CPU ratios to refs'.
func reportTimings(b *testing.B, what string, runs, refs []timing) {
	walls := make([]float64, len(runs))
	wallRatios := make([]float64, len(runs))
	cpuRatios := make([]float64, len(runs))
	for i, r := range runs {
		walls[i] = r.wall.Seconds() * 1000
		wallRatios[i] = r.wall.Seconds() / refs[i].wall.Seconds()
		cpuRatios[i] = r.cpu.Seconds() / refs[i].cpu.Seconds()
	}
	b.ReportMetric(median(walls), what+"-wall-ms")
	b.ReportMetric(median(wallRatios), what+"/oapi-wall")
	b.ReportMetric(median(cpuRatios), what+"/oapi-cpu")
}

// median returns the median of v (the mean of the middle two of an even
// count); it sorts v.
func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}
