package memcore

import "testing"

func TestIsTextExtension(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"a.md", true}, {"A.MD", true}, {"dir/x.tsx", true}, {"q.sql", true},
		{"s.graphql", true}, {"c.yml", true}, {"run.sh", true},
		{"img.png", false}, {"doc.pdf", false}, {"a.exe", false}, {"Makefile", false},
		{".env", false}, {"archive.tar.gz", false}, {"notes.md.bak", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := IsTextExtension(tt.path); got != tt.want {
				t.Errorf("IsTextExtension(%q) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
	if n := len(textExtensions); n < 100 {
		t.Errorf("whitelist has %d extensions, want about 100", n)
	}
}

func TestNodeExt(t *testing.T) {
	for in, want := range map[string]string{".env": "", "a/.env": "", "..x": "", ".env.local": ".local", "a.MD": ".MD", "a/b": "", "a.b/c": "", "x.tar.gz": ".gz"} {
		if got := nodeExt(in); got != want {
			t.Errorf("nodeExt(%q) = %q, want %q", in, got, want)
		}
	}
}
