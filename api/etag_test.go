package api

import "testing"

func TestETagMatches(t *testing.T) {
	const sum = "sha256:abc"
	tests := []struct {
		name, header string
		exists, want bool
	}{
		{"strong", `"sha256:abc"`, true, true},
		{"weak", `W/"sha256:abc"`, true, true},
		{"unquoted", `sha256:abc`, true, true},
		{"list", `"x", "sha256:abc"`, true, true},
		{"star existing", `*`, true, true},
		{"star missing", `*`, false, false},
		{"other", `"sha256:def"`, true, false},
		{"missing repo never matches a tag", `"sha256:abc"`, false, false},
		{"empty", ``, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ETagMatches(tt.header, sum, tt.exists); got != tt.want {
				t.Errorf("ETagMatches(%q) = %v, want %v", tt.header, got, tt.want)
			}
		})
	}
	if got := ETag(sum); got != `"sha256:abc"` {
		t.Errorf("ETag = %s", got)
	}
}
