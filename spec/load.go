package spec

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"
)

// LoadOptions tunes Load.
type LoadOptions struct {
	// Overlays are OpenAPI Overlay 1.0 or 1.1 files applied in order to
	// the document before its contracts are read, so a team can annotate a
	// spec it does not own.
	Overlays []string
	// Unmatched says what an overlay action whose target selects nothing
	// is; the zero value is UnmatchedError.
	Unmatched Unmatched
	// AllowRemoteRefs lets $refs name http and https URLs. Each is fetched
	// at most once, within 10 seconds and 16 MiB, from public addresses
	// only. Without it a $ref to a URL is an error at its position, and no
	// connection is made.
	AllowRemoteRefs bool
	// AllowRemoteRefHosts names hosts whose loopback, link-local, private
	// or other non-public addresses remote references may reach, such as
	// an internal schema registry; every other host must resolve to public
	// addresses only.
	AllowRemoteRefHosts []string
	// RefRoot is the directory the files that $refs name must be in,
	// symbolic links resolved; empty means the directory of the spec. A
	// $ref to a file outside it is an error at its position, and the file
	// is not opened.
	RefRoot string

	// open opens files for reading; nil means os.Open. Tests set it to
	// record which files a load opens.
	open func(name string) (*os.File, error)
}

// Load reads the OpenAPI 3.0 or 3.1 document at path, YAML or JSON, with
// the files and, when allowed, the URLs its $refs name (see
// LoadOptions), and decodes the x-idempotency-defaults block and each
// operation's x-idempotency block into merged contracts with the source
// position of every value.
//
// The error, when not nil, means the input is unusable: an unreadable file,
// invalid YAML or JSON, something that is not an OpenAPI document, or a
// contract that does not decode. It is an *Error or an ErrorList of every
// problem, sorted by position. Defects of the OpenAPI document itself, such
// as a dangling $ref, do not fail the load: they are reported in
// Document.Defects and block only the operations they touch.
func Load(ctx context.Context, path string, opts LoadOptions) (*Document, error) {
	l := newLoader(path, opts)
	root, err := l.source(l.rootKey)
	if err != nil {
		return nil, l.readError(l.rootKey, err)
	}
	if err := checkOpenAPI(root); err != nil {
		return nil, err
	}
	if err := l.applyOverlays(root, opts.Overlays, opts.Unmatched); err != nil {
		return nil, err
	}
	if err := l.checkRefGraph(ctx, root); err != nil {
		return nil, err
	}

	t, err := l.openAPI(ctx, root, path)
	if err != nil {
		return nil, err
	}

	doc := &Document{Path: path, OpenAPI: t, Warnings: l.warnings}
	defaults := l.decodeDefaults(root)
	doc.Operations = l.operations(root, t, defaults)
	l.errs = append(l.errs, consumerCollisions(doc.Operations)...)
	if len(l.errs) > 0 {
		return nil, l.errs.errOrNil()
	}
	if err := l.findDefects(ctx, doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// loader holds the state of one Load: every file read so far, keyed by
// slash-separated cleaned path as kin-openapi names them, and what was
// found in them.
type loader struct {
	rootKey     string
	rootDisplay string
	sources     map[string]*source
	// failed remembers files that could not be read or parsed, so each
	// failure is reported once.
	failed map[string]error
	errs   ErrorList
	// dangling holds the OAS001 defects found while reading files, in the
	// order of their placeholder numbers.
	dangling []Diagnostic
	// overlayNodes maps nodes inserted by overlays to the overlay file
	// they came from, so their positions name it.
	overlayNodes map[*yaml.Node]string
	// overlayLog lists the overlay actions applied, in order, with the
	// operation each changed; warnings are overlay warnings for
	// Document.Warnings.
	overlayLog []overlayRecord
	warnings   []*Error
	// overlayBudget counts the nodes overlays insert (overlay_bounds.go).
	overlayBudget overlayBudget
	// box decides which files and URLs may be read, and reads them.
	box *sandbox
	// refusals maps each file key or URL the sandbox refuses to the $refs
	// that name it (checkRefs).
	refusals map[string]*refusal
	// opNodes holds the nodes each operation was read from, for the
	// defects found by position (defect_headers.go).
	opNodes map[*Operation]opNode
}

// opNode is where an operation was read from: its file, its path item's
// node and its own.
type opNode struct {
	src      *source
	item, op *yaml.Node
}

// newLoader returns the loader for one Load of the root file at path.
func newLoader(path string, opts LoadOptions) *loader {
	return &loader{
		box:          newSandbox(path, opts),
		refusals:     map[string]*refusal{},
		rootKey:      sourceKey(path),
		rootDisplay:  path,
		sources:      map[string]*source{},
		failed:       map[string]error{},
		overlayNodes: map[*yaml.Node]string{},
		opNodes:      map[*Operation]opNode{},
	}
}

// sourceKey is the name a file is cached under: slash-separated and
// cleaned, as kin-openapi builds the paths of referenced files.
func sourceKey(p string) string {
	return path.Clean(filepath.ToSlash(p))
}

// display is how positions name the file with key: the root as the caller
// gave it, others as resolved relative to it.
func (l *loader) display(key string) string {
	if key == l.rootKey {
		return l.rootDisplay
	}
	return filepath.FromSlash(key)
}

// source returns the parsed file with key, reading, parsing and scanning
// it for dangling references on first use.
func (l *loader) source(key string) (*source, error) {
	if src, ok := l.sources[key]; ok {
		return src, nil
	}
	if err, ok := l.failed[key]; ok {
		return nil, err
	}
	if _, ok := l.refusals[key]; ok {
		return nil, errRefused
	}
	src, err := l.parse(key)
	if err != nil {
		l.failed[key] = err
		return nil, err
	}
	l.sources[key] = src
	l.checkRefs(src)
	l.patchDanglingRefs(key, src)
	return src, nil
}

// parse reads and parses the file with key. A file that does not parse
// or has duplicate keys adds its positioned errors to l.errs.
func (l *loader) parse(key string) (*source, error) {
	data, err := l.box.readFile(filepath.FromSlash(key), key != l.rootKey)
	if err != nil {
		return nil, err
	}
	src, err := parseSource(l.display(key), data)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			l.errs = append(l.errs, e)
		}
		return nil, err
	}
	src.key = key
	if dups := duplicateKeys(src); len(dups) > 0 {
		l.errs = append(l.errs, dups...)
		return nil, dups.errOrNil()
	}
	return src, nil
}

// readError words a failure to read or parse the file with key.
func (l *loader) readError(key string, err error) error {
	var list ErrorList
	var e *Error
	if errors.As(err, &list) || errors.As(err, &e) {
		return err
	}
	return &Error{Pos: Position{File: l.display(key)}, Msg: "cannot read file: " + readFailure(err)}
}

// readFailure words why a file could not be read, without repeating its
// name, which the error's position already gives.
func readFailure(err error) string {
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file"
	case errors.As(err, &pe):
		return pe.Err.Error()
	default:
		return err.Error()
	}
}

// readURI is kin-openapi's way into the files: it hands over the bytes this
// loader parsed (with dangling references replaced), so both parsers see
// the same text, and serves the empty schema behind each replacement.
// Every read kin-openapi makes comes here, so the sandbox sees them all:
// a refused target is reported at the $refs that name it, URLs go to the
// sandbox's fetch, which refuses them unless they are allowed, and files
// to its readFile, which refuses them outside the reference root.
func (l *loader) readURI(kl *openapi3.Loader, u *url.URL) ([]byte, error) {
	if strings.HasPrefix(path.Base(u.Path), danglingPrefix) {
		return []byte("{}"), nil
	}
	if l.refused(refTarget(u)) {
		return nil, errRefused
	}
	if u.Host != "" || (u.Scheme != "" && u.Scheme != "file") {
		return l.box.fetch(kl.Context, u)
	}
	src, err := l.source(sourceKey(u.Path))
	if err != nil {
		return nil, err
	}
	return src.data, nil
}

// checkOpenAPI tells an OpenAPI 3.0 or 3.1 document from anything else.
func checkOpenAPI(src *source) error {
	if src.root == nil || src.root.Kind != yaml.MappingNode {
		return &Error{Pos: src.pos(src.root), Msg: "not an OpenAPI document: want an object at the top level, got " + kindName(src.root)}
	}
	if _, v := mappingEntry(src.root, "swagger"); v != nil {
		return &Error{Pos: src.pos(v), Msg: "Swagger 2.0 is not supported: convert the document to OpenAPI 3.0 or 3.1"}
	}
	k, v := mappingEntry(src.root, "openapi")
	if v == nil {
		return &Error{Pos: src.pos(src.root), Msg: "not an OpenAPI document: no openapi field"}
	}
	if v.Kind != yaml.ScalarNode || !(strings.HasPrefix(v.Value, "3.0") || strings.HasPrefix(v.Value, "3.1")) {
		return &Error{Pos: src.pos(v), Path: k.Value, Msg: "unsupported OpenAPI version " + kindName(v) + " (want 3.0.x or 3.1.x)"}
	}
	if _, p := mappingEntry(src.root, "paths"); p != nil && p.Kind != yaml.MappingNode && p.ShortTag() != "!!null" {
		return &Error{Pos: src.pos(p), Path: "paths", Msg: "want an object, got " + kindName(p)}
	}
	return nil
}

// decodeDefaults decodes the root's x-idempotency-defaults, or returns nil
// when there is none.
func (l *loader) decodeDefaults(root *source) *block {
	if k, _ := mappingEntry(root.root, "x-idempotency"); k != nil {
		l.misplaced(root, k, "at the document root, write x-idempotency-defaults; x-idempotency belongs on an operation")
	}
	k, v := mappingEntry(root.root, "x-idempotency-defaults")
	if k == nil {
		return nil
	}
	d := &decoder{file: root.file, origin: l.overlayNodes}
	b := d.decodeBlock(k, v, "x-idempotency-defaults")
	if b != nil && b.consumer.Broker != nil {
		d.errs = append(d.errs, &Error{Pos: b.consumer.Broker.Pos, Path: "x-idempotency-defaults.broker",
			Msg: "a broker names what one consumer reads: write it on that webhook's x-idempotency block, not in the defaults"})
	}
	if b != nil && b.consumer.Name.Set {
		d.errs = append(d.errs, &Error{Pos: b.consumer.Name.Pos, Path: "x-idempotency-defaults.consumer",
			Msg: "consumer names one consumer in the inbox, and two consumers sharing a name share their messages: write it on that webhook's x-idempotency block, not in the defaults"})
	}
	l.errs = append(l.errs, d.errs...)
	return b
}

// methods are the operation keys of a path item.
var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// operations lists every operation under paths and webhooks, with the
// merged contract of each annotated one, sorted by path then method with
// webhooks last.
func (l *loader) operations(root *source, t *openapi3.T, defaults *block) []*Operation {
	var ops []*Operation
	for _, section := range []string{"paths", "webhooks"} {
		webhook := section == "webhooks"
		_, m := mappingEntry(root.root, section)
		if m == nil || m.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			name := m.Content[i].Value
			var item *openapi3.PathItem
			switch {
			case webhook:
				item = t.Webhooks[name]
			case t.Paths != nil:
				item = t.Paths.Value(name)
			}
			if item == nil {
				continue
			}
			src, node := l.resolvePathItem(root, m.Content[i+1])
			if k, _ := mappingEntry(node, "x-idempotency"); k != nil {
				l.misplaced(src, k, "x-idempotency belongs on an operation such as post, not on the path item")
			}
			for j := 0; j+1 < len(node.Content); j += 2 {
				method := node.Content[j].Value
				kop := item.GetOperation(strings.ToUpper(method))
				if !slices.Contains(methods, method) || kop == nil {
					continue
				}
				op := &Operation{
					ID:       kop.OperationID,
					Method:   strings.ToUpper(method),
					Path:     name,
					Webhook:  webhook,
					Pos:      src.pos(node.Content[j]),
					Op:       kop,
					PathItem: item,
				}
				l.opNodes[op] = opNode{src: src, item: node, op: deref(node.Content[j+1])}
				op.Contract = l.contract(src, node.Content[j+1], defaults, op)
				op.Status = l.statusRoute(src, node.Content[j+1])
				if op.Contract != nil {
					op.Overlays = l.overlaysFor(node.Content[j+1])
				}
				ops = append(ops, op)
			}
		}
	}
	slices.SortStableFunc(ops, func(a, b *Operation) int {
		if a.Webhook != b.Webhook {
			if a.Webhook {
				return 1
			}
			return -1
		}
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Method, b.Method))
	})
	return ops
}

// contract decodes the x-idempotency block of the operation node opNode
// and merges it over the defaults; nil when the operation has no block or
// the block is unusable (the error is recorded).
func (l *loader) contract(src *source, opNode *yaml.Node, defaults *block, op *Operation) *Contract {
	if k, _ := mappingEntry(opNode, "x-idempotency-defaults"); k != nil {
		l.misplaced(src, k, "x-idempotency-defaults belongs at the document root; on an operation, write x-idempotency")
	}
	k, v := mappingEntry(opNode, "x-idempotency")
	if k == nil {
		return nil
	}
	d := &decoder{file: src.file, origin: l.overlayNodes}
	b := d.decodeBlock(k, v, "x-idempotency")
	if b == nil {
		l.errs = append(l.errs, d.errs...)
		return nil
	}
	c := merge(b, defaults)
	mergeConsumer(d, c, b, defaults, op, "x-idempotency")
	checkKey(d, c, "x-idempotency")
	checkDurations(d, c, "x-idempotency")
	l.errs = append(l.errs, d.errs...)
	return c
}

// misplaced records a contract block written where Load does not read it,
// so it is not silently ignored.
func (l *loader) misplaced(src *source, key *yaml.Node, msg string) {
	d := &decoder{file: src.file, origin: l.overlayNodes}
	l.errs = append(l.errs, &Error{Pos: d.pos(key), Path: key.Value, Msg: msg})
}

// maxRefHops bounds how many $refs follow takes in a row, so a chain of
// references that names itself ends.
const maxRefHops = 16

// resolvePathItem follows a path item's $ref, possibly into another file,
// and returns the file and node that hold its operations.
func (l *loader) resolvePathItem(src *source, n *yaml.Node) (*source, *yaml.Node) {
	src, n = l.follow(src, n)
	if n == nil {
		n = &yaml.Node{Kind: yaml.MappingNode}
	}
	return src, n
}

// follow returns the node n of src stands for: n itself, or what its $ref
// names, followed at most maxRefHops times, with the file that holds it.
func (l *loader) follow(src *source, n *yaml.Node) (*source, *yaml.Node) {
	n = deref(n)
	for range maxRefHops {
		_, ref := mappingEntry(n, "$ref")
		if ref == nil || ref.Kind != yaml.ScalarNode {
			break
		}
		tsrc, target, ok := l.resolveRef(src, ref.Value)
		if !ok {
			break
		}
		src, n = tsrc, deref(target)
	}
	return src, n
}

// resolveRef finds the node a $ref names, relative to the file src.
func (l *loader) resolveRef(src *source, ref string) (*source, *yaml.Node, bool) {
	file, frag, _ := strings.Cut(ref, "#")
	if unescaped, err := url.PathUnescape(frag); err == nil {
		frag = unescaped
	}
	if file != "" {
		u, err := url.Parse(file)
		if err != nil || u.Scheme != "" || u.Host != "" {
			return nil, nil, false
		}
		tsrc, err := l.source(fileKey(src, u.Path))
		if err != nil {
			return nil, nil, false
		}
		src = tsrc
	}
	n, ok := lookupPointer(src.root, frag)
	return src, n, ok
}

// kinLine and kinPointer find the place in a kin-openapi parse error, such
// as "… construct errors: line 6: cannot construct !!int `5` into … in
// /paths/~1a/get/responses".
var (
	kinLine    = regexp.MustCompile(`line (\d+): `)
	kinPointer = regexp.MustCompile(` in (/\S*)$`)
)

// kinError turns a kin-openapi load error into a positioned *Error: at the
// node its JSON pointer names when the root file has it, else at the line
// it names, else at the file.
func kinError(root *source, err error) *Error {
	msg := oneLine(err.Error())
	pos := Position{File: root.file}
	if m := kinLine.FindAllStringSubmatchIndex(msg, -1); m != nil {
		last := m[len(m)-1]
		if line, err := strconv.Atoi(msg[last[2]:last[3]]); err == nil {
			pos.Line, pos.Col = line, 1
		}
		msg = msg[last[1]:]
	}
	if m := kinPointer.FindStringSubmatch(msg); m != nil {
		if n, ok := lookupPointer(root.root, m[1]); ok {
			pos = root.pos(n)
		}
	}
	return &Error{Pos: pos, Msg: "invalid OpenAPI document: " + msg}
}

// oneLine folds a multi-line message into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}
