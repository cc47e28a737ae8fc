package spec

import "testing"

func TestMediaKind(t *testing.T) {
	tests := []struct{ in, want string }{
		{"application/json", MediaJSON},
		{"application/json; charset=utf-8", MediaJSON},
		{"Application/JSON", MediaJSON},
		{"application/merge-patch+json", MediaJSON},
		{"application/problem+json", MediaJSON},
		{"application/x-www-form-urlencoded", MediaForm},
		{"application/x-www-form-urlencoded; charset=utf-8", MediaForm},
		{"multipart/form-data", MediaMultipart},
		{"Multipart/Form-Data; boundary=x", MediaMultipart},
		{"multipart/mixed", ""},
		{"text/plain", ""},
		{"text/json+xml", ""},
	}
	for _, tt := range tests {
		if got := MediaKind(tt.in); got != tt.want {
			t.Errorf("MediaKind(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
