//go:build long && linux

package generator

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// oapiRuntime is the module oapi-codegen's output imports, at the version
// docs/benchmarks.md compiles it with.
const oapiRuntime = "github.com/oapi-codegen/runtime@v1.9.0"

// compileCorpus are the specs issue 24 compares compile time on: Adyen
// v72 alone, since oapi-codegen v2.8.2's Twilio package does not compile
// (twilio/x.gen.go: DateCreated redeclared).
var compileCorpus = versusCorpus[:1]

// BenchmarkCompileVersusOapiCodegen compiles, in every iteration, the
// package idemgen generates from each spec in compileCorpus and the one
// oapi-codegen generates (the binary OAPI_CODEGEN names, with
// oapiStrictConfig), each alone in a module of its own, dependencies in
// the build cache. Before each build a new comment line goes at the end
// of one of the package's files, so the package itself compiles every
// time and nothing else does. The builds alternate, after a warm-up of
// each; it reports the medians of their CPU (user+sys of go build and the
// compiler it runs) and wall times and of the per-iteration ratios to
// oapi-codegen's. Do not run it under chrt: the toolchain under
// SCHED_FIFO on two cores spun for 33 minutes without finishing.
//
//	IDEMGEN_BIN=/tmp/idemgen OAPI_CODEGEN=/tmp/bin/oapi-codegen \
//	  go test -tags long ./generator -run '^$' -bench CompileVersusOapiCodegen -benchtime 10x
func BenchmarkCompileVersusOapiCodegen(b *testing.B) {
	oapi, idemgen, inputs := versusInputs(b, compileCorpus)
	for _, in := range inputs {
		c, tmp, spec, overlay := in.corpus, in.dir, in.spec, in.overlay
		ours := newScratchModule(b)
		pkgDir := filepath.Join(ours.dir, c.pkg)
		timeCommand(b, tmp, idemgen, "generate", "--spec", spec, "--overlay", overlay, "--out", pkgDir, "--package", c.pkg, "--tests")
		ours.goCmd(b, "mod", "tidy")

		// oapi-codegen's package is its module's root.
		theirs := &scratchModule{dir: oapiDir(b, c.pkg)}
		theirs.write(b, "go.mod", []byte("module example.com/oapi\n\ngo 1.26\n"))
		timeCommand(b, theirs.dir, oapi, "-config", "cfg.yaml", spec)
		theirs.goCmd(b, "get", oapiRuntime)

		b.Run(c.pkg, func(b *testing.B) {
			oursFile := filepath.Join(pkgDir, "idemgen.go")
			theirsFile := filepath.Join(theirs.dir, "x.gen.go")
			round := func() (mine, ref timing) {
				return compilePackage(b, ours.dir, "./"+c.pkg, oursFile), compilePackage(b, theirs.dir, ".", theirsFile)
			}
			round()
			var mine, refs []timing
			for b.Loop() {
				m, r := round()
				mine, refs = append(mine, m), append(refs, r)
			}
			reportTimings(b, "compile", mine, refs)
			refCPU := make([]float64, len(refs))
			for i, r := range refs {
				refCPU[i] = r.cpu.Seconds() * 1000
			}
			b.ReportMetric(median(refCPU), "oapi-cpu-ms")
		})
	}
}

// compilePackage appends a new comment line to file, which is in the
// package pkg names (a path relative to dir, in a module), and times go
// build of that package in dir.
func compilePackage(b *testing.B, dir, pkg, file string) timing {
	b.Helper()
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	_, err = fmt.Fprintf(f, "\n// %d\n", time.Now().UnixNano())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
	return timeCommand(b, dir, "go", "build", pkg)
}
