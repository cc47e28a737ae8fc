package spec

import (
	"maps"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// The media types of the bodies idemgen reads: JSON, and forms (URL-encoded
// or multipart, with file uploads) for request bodies.
const (
	MediaJSON      = "application/json"
	MediaForm      = "application/x-www-form-urlencoded"
	MediaMultipart = "multipart/form-data"
)

// MediaKind is MediaJSON for application/json and any structured +json
// type, MediaForm for URL-encoded form bodies, MediaMultipart for
// multipart/form-data, parameters and case ignored; "" for everything else.
func MediaKind(key string) string {
	base, _, _ := strings.Cut(key, ";")
	base = strings.ToLower(strings.TrimSpace(base))
	switch {
	case base == MediaJSON, strings.HasPrefix(base, "application/") && strings.HasSuffix(base, "+json"):
		return MediaJSON
	case base == MediaForm:
		return MediaForm
	case base == MediaMultipart:
		return MediaMultipart
	}
	return ""
}

// PickMedia returns the content entry of the first of kinds (MediaJSON,
// MediaForm, MediaMultipart) that content has: the entry named exactly like the kind, else
// the first in name order whose media type is of that kind. It is the one
// choice of which body a request or response is: the rules check pointers
// against that body's schema, and the generator decodes it.
func PickMedia(content openapi3.Content, kinds ...string) (key, kind string, m *openapi3.MediaType) {
	keys := slices.Sorted(maps.Keys(content))
	for _, kind := range kinds {
		if m := content[kind]; m != nil {
			return kind, kind, m
		}
		for _, key := range keys {
			if MediaKind(key) == kind {
				return key, kind, content[key]
			}
		}
	}
	return "", "", nil
}

// requestMedia returns the request body entry of op that is read (see
// PickMedia): kind is "" when op has no request body in JSON or a form.
// The generator's planner makes the same choice.
func requestMedia(op *Operation) (kind string, m *openapi3.MediaType) {
	if op.Op == nil || op.Op.RequestBody == nil || op.Op.RequestBody.Value == nil {
		return "", nil
	}
	_, kind, m = PickMedia(op.Op.RequestBody.Value.Content, MediaJSON, MediaForm, MediaMultipart)
	return kind, m
}
