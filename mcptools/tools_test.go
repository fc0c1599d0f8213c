package mcptools

import (
	"strings"
	"testing"
)

func TestSetIndexLine(t *testing.T) {
	const line = "- [DB](db.md) — new"
	for _, c := range []struct{ name, index, want string }{
		{"empty", "", line + "\n"},
		{"no final newline", "# Index\n- [A](a.md)", "# Index\n- [A](a.md)\n" + line + "\n"},
		{"replaced in place", "- [A](a.md)\n- [DB](db.md) — old\n- [B](b.md)\n", "- [A](a.md)\n" + line + "\n- [B](b.md)\n"},
		{"./ and escapes link the key", "- [DB](./db%2Emd) — old\n", line + "\n"},
		{"duplicates dropped", "- [DB](db.md) 1\n- [A](a.md)\n- [DB again](db.md#x) 2\n", line + "\n- [A](a.md)\n"},
		{"fenced code kept", "```\n- [DB](db.md)\n```\n", "```\n- [DB](db.md)\n```\n" + line + "\n"},
		{"other key with the same prefix kept", "- [DB2](db.md.md)\n", "- [DB2](db.md.md)\n" + line + "\n"},
		{"web link kept", "- [DB](https://x/db.md)\n", "- [DB](https://x/db.md)\n" + line + "\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := SetIndexLine(c.index, "db.md", line); got != c.want {
				t.Errorf("SetIndexLine(%q) = %q, want %q", c.index, got, c.want)
			}
		})
	}
}

func TestRemoveIndexLines(t *testing.T) {
	in := "# Team\n- [A](a.md)\n- [DB](db.md) — x\n```\n[DB](db.md)\n```\n- [DB](<db.md> \"t\")\n"
	want := "# Team\n- [A](a.md)\n```\n[DB](db.md)\n```\n"
	if got := RemoveIndexLines(in, "db.md"); got != want {
		t.Errorf("RemoveIndexLines = %q, want %q", got, want)
	}
	if got := RemoveIndexLines(in, "none.md"); got != in {
		t.Errorf("RemoveIndexLines of an unlinked key changed the index: %q", got)
	}
}

func TestCheckIndexLine(t *testing.T) {
	for line, ok := range map[string]bool{
		"- [DB](db.md) — hook":       true,
		"- [DB](other.md) — hook":    false,
		"- [DB](db.md)\n- [X](x.md)": false,
		"db.md":                      false,
	} {
		if err := checkIndexLine(line, "db.md"); (err == nil) != ok {
			t.Errorf("checkIndexLine(%q) = %v, want ok %v", line, err, ok)
		}
	}
}

func TestDescribe(t *testing.T) {
	for _, c := range []struct{ content, want string }{
		{"---\nname: x\ndescription: \"Why the tests flake\"\n---\n# Title\n", "Why the tests flake"},
		{"---\nname: x\n---\n\n# Deploy notes\nbody\n", "Deploy notes"},
		{"\n\n  plain first line  \nsecond", "plain first line"},
		{"", ""},
		{"---\nunclosed: yes\n", "unclosed: yes"},
	} {
		if got := Describe(c.content); got != c.want {
			t.Errorf("Describe(%q) = %q, want %q", c.content, got, c.want)
		}
	}
	long := Describe(strings.Repeat("é", 300))
	if len(long) > maxDescription+len("…") {
		t.Errorf("a long first line is %d bytes", len(long))
	}
}

func TestInstructionsFit(t *testing.T) {
	if n := len(Instructions); n > 2048 {
		t.Errorf("the instructions are %d bytes; Claude Code shows at most 2,048", n)
	}
}
