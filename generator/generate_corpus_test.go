//go:build long

package generator

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/idemgen/idemgen/runtime/defaults"
	"github.com/idemgen/idemgen/spec"
)

// corpusOptions are the options every corpus spec is generated with:
// contract tests, plain migrations and sqlc files, so every emitter runs.
func corpusOptions(pkg string) Options {
	return Options{
		Package:       pkg,
		GoDir:         pkg,
		Migrations:    MigrationsPlain,
		MigrationsDir: pkg + "/migrations",
		SQLCDir:       pkg + "/sqlc",
		Tests:         true,
	}
}

// loadCorpus loads a corpus spec in place with spec.Load.
func loadCorpus(t testing.TB, file string) *spec.Document {
	t.Helper()
	doc, err := spec.Load(context.Background(), file, spec.LoadOptions{})
	if err != nil {
		t.Fatalf("load %s: %v", file, err)
	}
	return doc
}

// TestGenerateCorpus annotates every mutating operation of each corpus
// spec, read in place, and checks that check and generate agree on it; then
// it drops the annotations the planner refuses, generates the rest whole
// with contract tests, and requires the generated packages to build, pass
// go vet and mount on a ServeMux and on chi (mountTest, whose fixture
// skips the contract tests), with no empty interface in the generated
// non-test code. Every annotated operation is generated, refused or
// blocked by a document defect, and the counts add up to the expected ones.
func TestGenerateCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("generates large specs and builds and vets them")
	}
	dir := corpusDir(t)
	if dir == "" {
		t.Skip("no shared/corpus directory above the package")
	}
	mod := verdictModule(t)
	var pkgs []string
	for _, c := range generateCorpus {
		start := time.Now()
		doc := loadCorpus(t, filepath.Join(dir, c.file))
		loaded := time.Since(start)
		annotated := annotateCorpus(doc)
		if annotated != c.mutating {
			t.Errorf("%s: annotated %d mutating operations, want %d", c.file, annotated, c.mutating)
		}
		// The property first, on every mutating operation annotated:
		// generate refuses exactly when check reports an error.
		requireJudged(t, c.file, doc, corpusOptions(c.pkg))
		// Then what this release generates: the operations the planner
		// refuses lose their annotation, and so do those a document defect
		// blocks; the rest generates.
		unannotated := unannotateRefused(doc)
		blocked := 0
		for _, op := range doc.Operations {
			if op.Contract != nil && len(op.Blocked) > 0 {
				blocked++
				for _, d := range op.Blocked {
					t.Logf("%s: blocked %s: %s: %s", c.file, describe(op), d.Pos, d.Message)
				}
			}
		}
		for _, op := range doc.Operations {
			if op.Contract != nil && len(op.Blocked) > 0 {
				op.Contract = nil
			}
		}
		start = time.Now()
		out, err := judgeAndGenerate(doc, corpusOptions(c.pkg))
		generated := time.Since(start)
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		tests := contractTests(t, out.Files, c.pkg)
		if want := annotated - blocked - unannotated; tests != want {
			t.Errorf("%s: %d contract tests generated, want %d (%d annotated - %d blocked - %d refused)", c.file, tests, want, annotated, blocked, unannotated)
		}
		if tests != c.generated {
			t.Errorf("%s: %d operations generated, want %d: update generateCorpus if the generator now supports more, fix it if it supports less", c.file, tests, c.generated)
		}
		var lines int
		for _, f := range out.Files {
			// The types file is written as gofmt prints it, with no
			// formatter (see emit's declarations): check that it is.
			if strings.HasSuffix(f.Path, "_types.go") {
				if formatted, err := format.Source(f.Content); err != nil || !bytes.Equal(formatted, f.Content) {
					t.Errorf("%s: %s is not as gofmt prints it (format error: %v)", c.file, f.Path, err)
				}
			}
			if strings.HasSuffix(f.Path, ".go") && !strings.HasSuffix(f.Path, "_test.go") {
				for _, found := range emptyInterfaces(t, f) {
					t.Errorf("%s: %s", c.file, found)
				}
			}
			lines += bytes.Count(f.Content, []byte("\n"))
			mod.write(t, f.Path, f.Content)
		}
		mod.write(t, c.pkg+"/mount_test.go", fmt.Appendf(nil, mountTest, c.pkg))
		pkgs = append(pkgs, c.pkg)
		t.Logf("%s: %d mutating operations annotated: %d generated, %d refused, %d blocked; %d files, %d lines; load %v, generate %v",
			c.file, annotated, tests, unannotated, blocked, len(out.Files), lines, loaded.Round(time.Millisecond), generated.Round(time.Millisecond))
	}
	for _, pkg := range pkgs {
		for _, args := range [][]string{{"build"}, {"vet"}, {"test", "-count=1", "-run", "TestMounts"}} {
			start := time.Now()
			mod.goCmd(t, append(args, "./"+pkg)...)
			t.Logf("go %s ./%s: %v", args[0], pkg, time.Since(start).Round(time.Millisecond))
		}
	}
}

// TestGenerateCorpusDeterministic generates Stripe three times, the last
// from a document whose operations are shuffled, and requires identical
// files.
func TestGenerateCorpusDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("generates the Stripe spec three times")
	}
	dir := corpusDir(t)
	if dir == "" {
		t.Skip("no shared/corpus directory above the package")
	}
	file := filepath.Join(dir, "stripe-spec3.yaml")
	generate := func(shuffle bool) []File {
		doc := loadCorpus(t, file)
		annotateCorpus(doc)
		unannotateRefused(doc)
		if shuffle {
			r := rand.New(rand.NewPCG(1, 2))
			r.Shuffle(len(doc.Operations), func(i, j int) {
				doc.Operations[i], doc.Operations[j] = doc.Operations[j], doc.Operations[i]
			})
		}
		out, err := judgeAndGenerate(doc, corpusOptions("stripe"))
		if err != nil {
			t.Fatal(err)
		}
		return out.Files
	}
	first := generate(false)
	for _, shuffle := range []bool{false, true} {
		again := generate(shuffle)
		if len(again) != len(first) {
			t.Fatalf("shuffled %v: %d files, want %d", shuffle, len(again), len(first))
		}
		for i := range first {
			if again[i].Path != first[i].Path || !bytes.Equal(again[i].Content, first[i].Content) {
				t.Errorf("shuffled %v: %s differs from the first run's %s", shuffle, again[i].Path, first[i].Path)
			}
		}
	}
}

// TestCorpusOverlayAnnotates checks that the overlay the CLI benchmark
// annotates a spec with gives the contracts the in-process tests construct,
// so both measure the same generation.
func TestCorpusOverlayAnnotates(t *testing.T) {
	dir := corpusDir(t)
	if dir == "" {
		t.Skip("no shared/corpus directory above the package")
	}
	file := filepath.Join(dir, "adyen-CheckoutService-v67.json")
	bare := loadCorpus(t, file)
	overlay := corpusOverlay(t, bare, t.TempDir())
	got, err := spec.Load(context.Background(), file, spec.LoadOptions{Overlays: []string{overlay}})
	if err != nil {
		t.Fatal(err)
	}
	annotateCorpus(bare)
	unannotateRefused(bare)
	if len(got.Operations) != len(bare.Operations) {
		t.Fatalf("%d operations with the overlay, want %d", len(got.Operations), len(bare.Operations))
	}
	withEffects := 0
	for i, op := range got.Operations {
		want := bare.Operations[i].Contract
		if diff := cmp.Diff(want, op.Contract, cmpopts.IgnoreTypes(spec.Position{})); diff != "" {
			t.Errorf("%s: contract from the overlay (-want +got):\n%s", describe(op), diff)
		}
		if want != nil && len(want.Effects) > 0 {
			withEffects++
		}
	}
	if withEffects == 0 {
		t.Error("no operation has effects; the corpus annotation should give some")
	}
}

// TestCorpusKeyHeaderPassesLint checks that the copies the CLI benchmark
// generates from document the key header on every mutating operation
// without a duplicate, so that, with the corpus overlay, idemgen generate
// finds no contract error and the copy has no defect the original lacks.
func TestCorpusKeyHeaderPassesLint(t *testing.T) {
	dir := corpusDir(t)
	if dir == "" {
		t.Skip("no shared/corpus directory above the package")
	}
	// Twilio documents no key header, Adyen v67 documents it everywhere.
	for _, name := range []string{"twilio-twilio_api_v2010.json", "adyen-CheckoutService-v67.json"} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(dir, name)
			original := loadCorpus(t, file)
			tmp := t.TempDir()
			overlay := corpusOverlay(t, original, tmp)
			doc, err := spec.Load(context.Background(), documentKeyHeader(t, file, tmp), spec.LoadOptions{Overlays: []string{overlay}})
			if err != nil {
				t.Fatal(err)
			}
			if len(doc.Defects) > len(original.Defects) {
				t.Errorf("%d defects in the copy, %d in the original:\n%v", len(doc.Defects), len(original.Defects), doc.Defects)
			}
			annotated := 0
			for _, op := range doc.Operations {
				if op.Contract == nil {
					continue
				}
				annotated++
				if op.Op.Parameters.GetByInAndName("header", defaults.KeyHeader) == nil && op.PathItem.Parameters.GetByInAndName("header", defaults.KeyHeader) == nil {
					t.Errorf("%s does not document %s", describe(op), defaults.KeyHeader)
				}
			}
			if want := annotateCorpus(original) - unannotateRefused(original); annotated != want {
				t.Errorf("%d operations annotated in the copy, want %d", annotated, want)
			}
			for _, d := range spec.Check(doc, spec.CheckOptions{}).Diagnostics {
				if d.Severity == spec.SeverityError {
					t.Errorf("%s: %s %s", d.Pos, d.Rule, d.Message)
				}
			}
		})
	}
}

// contractTests counts the generated contract tests of a package, one per
// generated operation.
func contractTests(t testing.TB, files []File, pkg string) int {
	t.Helper()
	for _, f := range files {
		if path.Dir(f.Path) == pkg && strings.HasSuffix(f.Path, "_contract_test.go") {
			return bytes.Count(f.Content, []byte("\nfunc TestContract"))
		}
	}
	t.Fatalf("no contract test file among the generated files of %s", pkg)
	return 0
}

// emptyInterfaces lists, with positions, every interface{} and every use
// of the identifier any in a generated Go file: the typed request path must
// have none. Comments are not code and are not searched.
func emptyInterfaces(t testing.TB, f File) []string {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, f.Path, f.Content, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse generated %s: %v", f.Path, err)
	}
	var found []string
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.InterfaceType:
			if n.Methods == nil || len(n.Methods.List) == 0 {
				found = append(found, fmt.Sprintf("%s: interface{}", fset.Position(n.Pos())))
			}
		case *ast.Ident:
			if n.Name == "any" {
				found = append(found, fmt.Sprintf("%s: any", fset.Position(n.Pos())))
			}
		}
		return true
	})
	return found
}

// TestEmptyInterfaces checks the scan TestGenerateCorpus relies on: it
// finds interface{} and any in code, not in comments, and not an interface
// with methods.
func TestEmptyInterfaces(t *testing.T) {
	src := `package p

// Any value is fine: any, interface{}.
type Handlers interface{ Run() error }

var v interface{}

func f(a any) {}
`
	got := emptyInterfaces(t, File{Path: "p.go", Content: []byte(src)})
	want := []string{"p.go:6:7: interface{}", "p.go:8:10: any"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}
