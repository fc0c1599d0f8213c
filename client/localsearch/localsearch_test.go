package localsearch

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for k, c := range files {
		p := filepath.Join(dir, filepath.FromSlash(k))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSearch(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"ops/deploys.md":   "---\nname: Deploys\ndescription: How we ship\n---\n\n# Deploys\nRun make release on Fridays.\n",
		"ops/rollback.md":  "Rolling back after deploying twice.\n",
		"db.md":            "---\nname: db\ndescription: deploy the database\n---\n",
		"MEMORY.md":        "- [Deploys](ops/deploys.md) — how we ship\n",
		".git/deploy.md":   "deploy in a hidden folder",
		".#deploy.md":      "deploy in a hidden file",
		"notes/deploy.bin": "deploy in a file no key names",
		"team/deploy.md":   "deploy in an excluded folder",
	})
	cases := []struct {
		query string
		want  []Hit
	}{
		{"deploy", []Hit{ // the key or name first
			{"ops/deploys.md", "# Deploys"},
			{"MEMORY.md", "- [Deploys](ops/deploys.md) — how we ship"},
			{"db.md", "deploy the database"},
			{"ops/rollback.md", "Rolling back after deploying twice."},
		}},
		{"Deploys make", []Hit{{"ops/deploys.md", "# Deploys"}}},
		{"FRIDAYS release", []Hit{{"ops/deploys.md", "Run make release on Fridays."}}},
		{"zyzzyva", []Hit{}},
		{"*** ---", nil},
	}
	for _, c := range cases {
		got, err := Search(dir, c.query, 10, "team")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Search(%q) = %q, want %q", c.query, got, c.want)
		}
	}
	if got, _ := Search(dir, "deploy", 2, "team"); len(got) != 2 || got[0].Key != "ops/deploys.md" {
		t.Errorf("limit 2: %q", got)
	}
	if _, err := Search(filepath.Join(dir, "missing"), "deploy", 10); err == nil {
		t.Error("a missing folder is no error")
	}
}
