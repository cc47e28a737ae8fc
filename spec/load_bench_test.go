package spec

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkLoadCorpus measures Load on each spec of the real-world corpus:
// both parses, reference resolution, contract decoding and the
// per-operation defect checks. One iteration is one spec loaded.
func BenchmarkLoadCorpus(b *testing.B) {
	dir := corpusDir(b)
	for _, f := range corpusFiles {
		b.Run(f.name, func(b *testing.B) {
			path := filepath.Join(dir, f.name)
			b.ReportAllocs()
			for b.Loop() {
				doc, err := Load(context.Background(), path, LoadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if len(doc.Operations) != f.ops {
					b.Fatalf("%d operations, want %d", len(doc.Operations), f.ops)
				}
			}
		})
	}
}
