package idemtest

import (
	"io"
	"mime"
	"testing"

	"github.com/idemgen/idemgen/runtime/form"
)

// TestEncodeMultipart renders a request struct as the contract tests send
// it and reads it back with the runtime's parser: file fields as file
// parts with their name, media type and bytes, the rest as bracketed text
// parts, nil fields left out.
func TestEncodeMultipart(t *testing.T) {
	type address struct {
		City string `json:"city"`
	}
	type body struct {
		File    form.File         `json:"file"`
		Thumb   *form.File        `json:"thumb,omitempty"`
		Purpose string            `json:"purpose"`
		Pages   *int64            `json:"pages,omitempty"`
		Tags    []string          `json:"tags,omitzero"`
		Meta    map[string]string `json:"meta,omitzero"`
		Ship    *address          `json:"ship,omitempty"`
		Paid    bool              `json:"paid"`
	}
	pages := int64(3)
	b, ct, err := EncodeMultipart(&body{
		File:    form.NewFile("a.pdf", "application/pdf", []byte("%PDF\x00")),
		Purpose: "invoice", Pages: &pages, Tags: []string{"x", "y"},
		Meta: map[string]string{"k": "v"}, Ship: &address{City: "Paris"}, Paid: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	media, params, err := mime.ParseMediaType(ct)
	if err != nil || media != "multipart/form-data" {
		t.Fatalf("Content-Type %q: %v", ct, err)
	}
	root, err := form.ParseMultipart(b, params["boundary"])
	if err != nil {
		t.Fatal(err)
	}
	f, err := form.Upload(root.Get("file"), -1)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(f.Reader())
	if f.Name != "a.pdf" || f.ContentType != "application/pdf" || string(data) != "%PDF\x00" {
		t.Errorf("file %q %q %q", f.Name, f.ContentType, data)
	}
	if root.Get("thumb") != nil {
		t.Error("a nil file was sent")
	}
	text := map[string]*form.Node{
		"invoice": root.Get("purpose"), "3": root.Get("pages"), "x": root.Get("tags").Get("0"), "y": root.Get("tags").Get("1"),
		"v": root.Get("meta").Get("k"), "Paris": root.Get("ship").Get("city"), "true": root.Get("paid"),
	}
	for want, n := range text {
		if n == nil {
			t.Errorf("no part holds %q", want)
			continue
		}
		if got, err := form.String(n); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", n.Key(), got, err, want)
		}
	}
	if _, _, err := EncodeMultipart(42); err == nil {
		t.Error("a number encoded as a multipart body")
	}
}
