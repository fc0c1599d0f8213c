package agent

import "testing"

func TestSeedIndex(t *testing.T) {
	owned := func(keys ...string) func(string) bool {
		return func(k string) bool {
			for _, o := range keys {
				if o == k {
					return true
				}
			}
			return false
		}
	}
	for _, c := range []struct {
		name, key, server, folder string
		prune                     bool
		owned                     func(string) bool
		want                      string
		added, removed            int
	}{
		{name: "union keeps the team's lines", key: "MEMORY.md", server: "- [A](a.md)\n- [B](b.md)\n", folder: "- [S](s.md)\n",
			owned: owned("s.md"), want: "- [A](a.md)\n- [B](b.md)\n- [S](s.md)\n", added: 1},
		{name: "a line on both sides once", key: "MEMORY.md", server: "- [A](a.md)\n- [S](s.md)\n", folder: "- [S](s.md)\n",
			owned: owned("s.md"), want: "- [A](a.md)\n- [S](s.md)\n"},
		{name: "without prune nothing is removed", key: "MEMORY.md", server: "- [S](s.md) — old\n", folder: "- [S](s.md) — new\n",
			owned: owned("s.md"), want: "- [S](s.md) — old\n- [S](s.md) — new\n", added: 1},
		{name: "prune replaces the folder's own line", key: "MEMORY.md", server: "- [A](a.md)\n- [S](s.md) — old\n", folder: "- [S](s.md) — new\n",
			prune: true, owned: owned("s.md"), want: "- [A](a.md)\n- [S](s.md) — new\n", added: 1, removed: 1},
		{name: "prune keeps a line linking a teammate's key too", key: "MEMORY.md", server: "- [S](s.md) and [A](a.md)\n", folder: "",
			prune: true, owned: owned("s.md"), want: "- [S](s.md) and [A](a.md)\n"},
		{name: "prune keeps prose and headings", key: "MEMORY.md", server: "# Team\nSee below.\n- [S](s.md)\n", folder: "",
			prune: true, owned: owned("s.md"), want: "# Team\nSee below.\n", removed: 1},
		{name: "prune leaves fenced code alone", key: "MEMORY.md", server: "```\n- [S](s.md)\n```\n", folder: "",
			prune: true, owned: owned("s.md"), want: "```\n- [S](s.md)\n```\n"},
		{name: "links resolve from the index's folder", key: "ops/MEMORY.md", server: "- [S](s.md)\n- [T](../t.md)\n", folder: "",
			prune: true, owned: owned("ops/s.md", "ops/t.md"), want: "- [T](../t.md)\n", removed: 1},
		{name: "blank folder lines are not added", key: "MEMORY.md", server: "- [A](a.md)\n", folder: "\n\n- [S](s.md)\n",
			owned: owned(), want: "- [A](a.md)\n- [S](s.md)\n", added: 1},
		{name: "empty server", key: "MEMORY.md", server: "", folder: "- [S](s.md)",
			owned: owned(), want: "- [S](s.md)\n", added: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := SeedIndex(c.key, c.server, c.folder, c.prune, c.owned)
			if got.Content != c.want || got.Added != c.added || got.Removed != c.removed {
				t.Errorf("SeedIndex = %q +%d -%d; want %q +%d -%d", got.Content, got.Added, got.Removed, c.want, c.added, c.removed)
			}
		})
	}
}
