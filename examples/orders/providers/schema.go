package providers

import _ "embed"

// SchemaSQL creates the table provider_calls if it does not exist; the
// example runs it at start, before the worker.
//
//go:embed provider_calls.sql
var SchemaSQL string
