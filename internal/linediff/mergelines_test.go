package linediff

import (
	"testing"
)

func TestMergeLines(t *testing.T) {
	const base = "# Index\n- [a](a.md) — A\n- [b](b.md) — B\n- [c](c.md) — C\n"
	tests := []struct {
		name, base, local, server, want string
	}{
		{"one line added on each side at the end", base,
			base + "- [mine](mine.md) — ours\n", base + "- [theirs](theirs.md) — theirs\n",
			base + "- [mine](mine.md) — ours\n- [theirs](theirs.md) — theirs\n"},
		{"added at the same place in the middle: ours first", base,
			"# Index\n- [a](a.md) — A\n- [x](x.md) — ours\n- [b](b.md) — B\n- [c](c.md) — C\n",
			"# Index\n- [a](a.md) — A\n- [y](y.md) — theirs\n- [b](b.md) — B\n- [c](c.md) — C\n",
			"# Index\n- [a](a.md) — A\n- [x](x.md) — ours\n- [y](y.md) — theirs\n- [b](b.md) — B\n- [c](c.md) — C\n"},
		{"identical line added on both sides: once", base,
			base + "- [same](same.md)\n", base + "- [same](same.md)\n", base + "- [same](same.md)\n"},
		{"identical line added on both sides among others: once", base,
			base + "- [same](same.md)\n- [mine](mine.md)\n", base + "- [theirs](theirs.md)\n- [same](same.md)\n",
			base + "- [same](same.md)\n- [mine](mine.md)\n- [theirs](theirs.md)\n"},
		{"deleted on one side, unchanged on the other: deleted", base,
			"# Index\n- [a](a.md) — A\n- [c](c.md) — C\n", base + "- [d](d.md)\n",
			"# Index\n- [a](a.md) — A\n- [c](c.md) — C\n- [d](d.md)\n"},
		{"deleted by the server, ours added next to it", base,
			"# Index\n- [a](a.md) — A\n- [b](b.md) — B\n- [n](n.md) — new\n- [c](c.md) — C\n",
			"# Index\n- [a](a.md) — A\n- [c](c.md) — C\n",
			"# Index\n- [a](a.md) — A\n- [n](n.md) — new\n- [c](c.md) — C\n"},
		{"changed on both sides: both versions", base,
			"# Index\n- [a](a.md) — A\n- [b](b.md) — B mine\n- [c](c.md) — C\n",
			"# Index\n- [a](a.md) — A\n- [b](b.md) — B theirs\n- [c](c.md) — C\n",
			"# Index\n- [a](a.md) — A\n- [b](b.md) — B mine\n- [b](b.md) — B theirs\n- [c](c.md) — C\n"},
		{"no base: ours then theirs", "", "- Bob\n", "- Alice\n", "- Bob\n- Alice\n"},
		{"identical line added on both sides at different places: once, where ours is", "A\n",
			"X\nA\n", "A\nX\n", "X\nA\n"},
		{"missing final newline", "a\n", "a\nmine", "a\ntheirs", "a\nmine\ntheirs\n"},
		{"one side unchanged: the other exactly", base, base, "x", "x"},
		{"blank lines kept when the server deletes one of several", "a\n\nb\n\nc\n", "a\n\nb\n\nc\nmine\n", "a\n\nb\nc\n",
			"a\n\nb\nc\nmine\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MergeLines(tt.base, tt.local, tt.server); got != tt.want {
				t.Errorf("MergeLines =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
