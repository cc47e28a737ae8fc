package emit

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"sync"

	"github.com/idemgen/idemgen/generator/ir"
)

// typesParts is how many parts the types file renders in at once. The
// types file is the largest of most packages (Adyen v72's 598 KB against
// 326 KB of operations), and formatting it alone took longer than all the
// other files on two cores; docs/benchmarks.md, issue 24.
const typesParts = 2

// splitMin is the fewest declarations a part of the types file has.
const splitMin = 2

// typesFile renders the types file of a package: the patterns, then the
// declarations, in up to parts parts at once, joined into the bytes one
// render of the whole file gives (see joinParts).
func typesFile(pkg string, decls []*ir.TypeDecl, patterns []*ir.Pattern, parts int) ([]byte, error) {
	bounds := splitDecls(decls, parts)
	srcs := make([][]byte, len(bounds)-1)
	errs := make([]error, len(srcs))
	var wg sync.WaitGroup
	for i := range srcs {
		wg.Go(func() {
			f := newGoFile(pkg)
			if i == 0 {
				emitPatterns(f, patterns)
			}
			emitTypes(f, decls[bounds[i]:bounds[i+1]])
			var buf bytes.Buffer
			errs[i] = f.Render(&buf)
			srcs[i] = buf.Bytes()
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	src, err := joinParts(srcs)
	if err != nil {
		return nil, err
	}
	return groupImports(src)
}

// splitDecls returns the bounds of at most parts runs of decls of about
// the same size, counted in fields and constants, each of at least
// splitMin declarations: decls[b[i]:b[i+1]] is part i.
func splitDecls(decls []*ir.TypeDecl, parts int) []int {
	parts = max(1, min(parts, len(decls)/splitMin))
	weight := func(d *ir.TypeDecl) int { return 1 + len(d.Fields) + len(d.Consts) }
	total := 0
	for _, d := range decls {
		total += weight(d)
	}
	bounds := []int{0}
	sum := 0
	for i, d := range decls {
		if len(bounds) < parts && sum >= total*len(bounds)/parts && i-bounds[len(bounds)-1] >= splitMin {
			bounds = append(bounds, i)
		}
		sum += weight(d)
	}
	return append(bounds, len(decls))
}

// joinParts joins formatted files that differ only in their imports and
// declarations into the file one render of all their declarations gives:
// the first part's header and package clause, the union of the imports in
// one block sorted by path as jennifer writes it, and the declarations of
// each part in turn, one blank line apart. Every declaration of the types
// file starts with a doc comment, so gofmt separates any two of them by
// one blank line, and how it prints one declaration does not depend on
// its neighbours.
func joinParts(srcs [][]byte) ([]byte, error) {
	if len(srcs) == 1 {
		return srcs[0], nil
	}
	var head []byte
	specs := map[string]string{}
	bodies := make([][]byte, len(srcs))
	for i, src := range srcs {
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, "", src, parser.ImportsOnly)
		if err != nil {
			return nil, err
		}
		offset := func(p token.Pos) int { return fset.Position(p).Offset }
		start := offset(file.Name.End())
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.IMPORT {
				continue
			}
			start = offset(g.End())
			for _, s := range g.Specs {
				spec := s.(*ast.ImportSpec)
				path, err := strconv.Unquote(spec.Path.Value)
				if err != nil {
					return nil, err
				}
				specs[path] = string(src[offset(spec.Pos()):offset(spec.End())])
			}
		}
		if i == 0 {
			head = src[:offset(file.Name.End())]
		}
		bodies[i] = bytes.TrimLeft(src[start:], "\n")
	}
	var b bytes.Buffer
	b.Write(head)
	b.WriteString("\n\n")
	paths := slices.Sorted(func(yield func(string) bool) {
		for p := range specs {
			if !yield(p) {
				return
			}
		}
	})
	switch len(paths) {
	case 0:
	case 1:
		fmt.Fprintf(&b, "import %s\n\n", specs[paths[0]])
	default:
		b.WriteString("import (\n")
		for _, p := range paths {
			fmt.Fprintf(&b, "\t%s\n", specs[p])
		}
		b.WriteString(")\n\n")
	}
	for i, body := range bodies {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.Write(body)
	}
	return b.Bytes(), nil
}
