package templates

import "embed"

// FS holds every template source, by file name.
//
//go:embed *.tmpl
var FS embed.FS

// ExplainMarkdown is the name in FS of the template behind idemgen explain.
// It executes on a spec/explain report.
const ExplainMarkdown = "explain.md.tmpl"
