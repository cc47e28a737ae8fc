package emit

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"sync"
)

// partSize is the least number of bytes of unformatted source render puts
// in one part (formatSource): enough that a part's fixed cost (a file set,
// a parser, a printer) is small beside its text, small enough that the
// largest generated files split into tens of parts.
const partSize = 16 << 10

// partHeader is the package clause each part after the first is formatted
// under, so that it is a file of its own; it is cut off the result.
const partHeader = "package p\n\n"

// formatSource formats the unformatted source jennifer writes (File with
// NoFormat) as format.Source would, in parts of at least least bytes
// formatted at once: formatting is most of a file's render, and the
// largest file formatted alone would otherwise be most of generate's time
// on two cores. It returns the formatted parts, which joinParts joins; the
// first holds the package clause and the imports.
//
// A part starts at a doc comment at the start of a line, after a line
// with no comment and before a line that starts a declaration. gofmt puts
// exactly one blank line there (before a doc comment at the package level
// it keeps or adds one, unless the line above ends with a comment) and
// lays out each declaration on its own (a column of aligned comments or
// fields ends at a blank line), so the parts, formatted alone and joined
// with a blank line, are the file formatted whole. jennifer writes no
// indentation, so such lines also occur inside a function body or a
// parenthesized declaration, or a block comment or raw string; a part cut
// there holds an unterminated brace, parenthesis, comment or string and
// does not parse, and then the file is formatted whole, as before.
func formatSource(src []byte, least int) ([][]byte, error) {
	if parts, err := formatParts(src, partStarts(src, least)); err == nil {
		return parts, nil
	}
	out, err := formatWhole(src)
	if err != nil {
		return nil, err
	}
	return [][]byte{out}, nil
}

// formatParts formats src cut at starts, each part at once; it fails when
// a part is not Go.
func formatParts(src []byte, starts []int) ([][]byte, error) {
	bounds := append(append([]int{0}, starts...), len(src))
	parts := make([][]byte, len(bounds)-1)
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i := range parts {
		wg.Go(func() {
			text := src[bounds[i]:bounds[i+1]]
			if i > 0 {
				text = append([]byte(partHeader), text...)
			}
			out, err := formatPart(text)
			if err == nil && i > 0 {
				var ok bool
				if out, ok = bytes.CutPrefix(out, []byte(partHeader)); !ok {
					err = fmt.Errorf("part %d does not start with its package clause", i)
				}
			}
			parts[i], errs[i] = out, err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return parts, nil
}

// joinParts joins formatted parts with a blank line.
func joinParts(parts [][]byte) []byte {
	size := len(parts) - 1
	for _, p := range parts {
		size += len(p)
	}
	out := make([]byte, 0, size)
	for i, p := range parts {
		if i > 0 {
			out = append(out, '\n')
		}
		out = append(out, p...)
	}
	return out
}

// printerConfig is format.Source's printer configuration; the mode's
// highest bit is go/format's printerNormalizeNumbers, which go/printer
// reads (as its unexported normalizeNumbers) to print number literals as
// gofmt does.
var printerConfig = printer.Config{Mode: printer.UseSpaces | printer.TabIndent | 1<<30, Tabwidth: 8}

// formatPart formats src, a whole Go file, as format.Source does, into a
// buffer sized for the result up front: formatted text is at most about a
// fifth longer than jennifer's (indentation, alignment), and a buffer that
// grows by doubling from empty writes about twice the result, each time to
// fresh memory.
func formatPart(src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	ast.SortImports(fset, file)
	buf := bytes.NewBuffer(make([]byte, 0, len(src)+len(src)/4+512))
	if err := printerConfig.Fprint(buf, fset, file); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// formatWhole formats src in one piece; when it is not Go, the error
// holds the source, as jennifer's Render's does.
func formatWhole(src []byte) ([]byte, error) {
	out, err := format.Source(src)
	if err != nil {
		return nil, fmt.Errorf("formatting the generated source: %w\n%s", err, src)
	}
	return out, nil
}

// partStarts returns the offsets in src at which formatSource starts a
// new part: each the start of a doc comment as formatSource describes, at
// least least bytes after the previous part's start, and none in the last
// least bytes.
func partStarts(src []byte, least int) []int {
	var starts []int
	last := 0
	for i := least; i < len(src)-least; {
		j := bytes.Index(src[i:len(src)-least], []byte("\n//"))
		if j < 0 {
			break
		}
		at := i + j + 1
		if at-last >= least && !hasComment(lineBefore(src, at)) && documentsDeclaration(src[at:]) {
			starts = append(starts, at)
			last = at
			i = at + least
			continue
		}
		i = at
	}
	return starts
}

// lineBefore returns the line of src that ends just before at, the start
// of a line after the first.
func lineBefore(src []byte, at int) []byte {
	return src[bytes.LastIndexByte(src[:at-1], '\n')+1 : at-1]
}

// hasComment reports whether line may hold a comment or the end of one
// (it may also be in a string).
func hasComment(line []byte) bool {
	return bytes.Contains(line, []byte("//")) || bytes.Contains(line, []byte("/*")) || bytes.Contains(line, []byte("*/"))
}

// documentsDeclaration reports whether b starts with lines that start
// with // followed by a line that starts a declaration.
func documentsDeclaration(b []byte) bool {
	for bytes.HasPrefix(b, []byte("//")) {
		end := bytes.IndexByte(b, '\n')
		if end < 0 {
			return false
		}
		b = b[end+1:]
	}
	for _, kw := range [...]string{"func ", "type ", "var ", "const "} {
		if bytes.HasPrefix(b, []byte(kw)) {
			return true
		}
	}
	return false
}
