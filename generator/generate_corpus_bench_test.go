//go:build long && linux

package generator

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkGenerateCorpusCLI runs the idemgen binary on each corpus spec,
// annotated whole through an overlay written at run time, and reports the
// wall time per run and the peak resident set of the process, as GNU time
// measures it (the figure /usr/bin/time -v prints as "Maximum resident set
// size"; hence linux only). IDEMGEN_BIN names the binary; without it the
// benchmark builds ./cmd/idemgen once. When OAPI_CODEGEN names an
// oapi-codegen binary, the same spec is also run through
//
//	oapi-codegen -generate types,std-http-server -package x SPEC
//
// as the reference; a spec it fails on is reported and skipped. Both run on
// the copy of the spec that documents the key header (documentKeyHeader),
// which idemgen generate requires.
func BenchmarkGenerateCorpusCLI(b *testing.B) {
	dir := corpusDir(b)
	if dir == "" {
		b.Skip("no shared/corpus directory above the package")
	}
	idemgen := idemgenBinary(b)
	oapi := os.Getenv("OAPI_CODEGEN")
	for _, c := range generateCorpus {
		file := filepath.Join(dir, c.file)
		tmp := b.TempDir()
		overlay := corpusOverlay(b, loadCorpus(b, file), tmp)
		spec := documentKeyHeader(b, file, tmp)
		b.Run("idemgen/"+c.pkg, func(b *testing.B) {
			benchCommand(b, func(out string) []string {
				return []string{idemgen, "generate", "--spec", spec, "--overlay", overlay, "--out", out, "--package", c.pkg, "--tests"}
			})
		})
		if oapi == "" {
			continue
		}
		b.Run("oapi-codegen/"+c.pkg, func(b *testing.B) {
			benchCommand(b, func(out string) []string {
				return []string{oapi, "-generate", "types,std-http-server", "-package", "x", "-o", filepath.Join(out, "x.go"), spec}
			})
		})
	}
}

// idemgenBinary returns the idemgen binary the CLI benchmarks run: the one
// IDEMGEN_BIN names, or ./cmd/idemgen built once into a temporary
// directory.
func idemgenBinary(b *testing.B) string {
	if bin := os.Getenv("IDEMGEN_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(b.TempDir(), "idemgen")
	build := exec.Command("go", "build", "-o", bin, "./cmd/idemgen")
	build.Dir = repoRoot(b)
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build ./cmd/idemgen: %v\n%s", err, out)
	}
	return bin
}

// timeBin is GNU time, which reports the peak resident set of the command
// it runs. The benchmark cannot take it from its own child's rusage: on
// Linux a child execs with its parent's high-water mark, and the parent
// here holds a loaded spec.
const timeBin = "/usr/bin/time"

// benchCommand runs the command args gives for a fresh output directory b.N
// times under GNU time and reports the largest peak resident set of a run
// as peak-RSS-MiB. A command that fails skips the benchmark with its
// output.
func benchCommand(b *testing.B, args func(out string) []string) {
	if _, err := os.Stat(timeBin); err != nil {
		b.Skipf("no %s (Debian package time) to measure the peak resident set", timeBin)
	}
	var peakKiB int64
	b.Logf("%s", strings.Join(args("OUT"), " "))
	for b.Loop() {
		out, err := os.MkdirTemp(b.TempDir(), "out")
		if err != nil {
			b.Fatal(err)
		}
		rss := filepath.Join(out, "rss")
		a := args(out)
		cmd := exec.Command(timeBin, append([]string{"-f", "%M", "-o", rss}, a...)...)
		cmd.Dir = out
		if output, err := cmd.CombinedOutput(); err != nil {
			b.Skipf("%s failed: %v\n%s", filepath.Base(a[0]), err, truncateLines(string(output), 10))
		}
		kib, err := readPeakKiB(rss)
		if err != nil {
			b.Fatal(err)
		}
		peakKiB = max(peakKiB, kib)
	}
	b.ReportMetric(float64(peakKiB)/1024, "peak-RSS-MiB")
}

// readPeakKiB reads the peak resident set in KiB that GNU time's %M wrote
// on the last line of file.
func readPeakKiB(file string) (int64, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	lines := strings.Fields(string(data))
	if len(lines) == 0 {
		return 0, fmt.Errorf("%s: no peak resident set from %s", file, timeBin)
	}
	return strconv.ParseInt(lines[len(lines)-1], 10, 64)
}
