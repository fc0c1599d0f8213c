package storetest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/server"
)

func testByteOrder(t *testing.T, s server.Store) {
	c := contents{
		"zz.md": "1", "Z.md": "2", "a.md": "3", "é.md": "4", "日本/メモ.md": "5",
		"a/b.md": "6", "a-b.md": "7", "a_b.md": "8", "ü.md": "9", "Ω.md": "10", "😀.md": "11",
	}
	apply(t, s, write(repo, at(0), c))
	var want []string
	for k := range c {
		want = append(want, k)
	}
	slices.Sort(want) // Go string order is byte order
	snap := snapshot(t, s, repo, server.ReadOptions{})
	if diff := cmp.Diff(want, keys(snap.Live)); diff != "" {
		t.Errorf("live key order (-want +got):\n%s", diff)
	}
	if snap.Checksum != c.checksum() {
		t.Errorf("checksum %s; want %s", snap.Checksum, c.checksum())
	}
	apply(t, s, write(repo, at(1), nil, "é.md", "Z.md", "😀.md"))
	snap = snapshot(t, s, repo, server.ReadOptions{})
	if diff := cmp.Diff([]string{"Z.md", "é.md", "😀.md"}, tombKeys(snap.Deleted)); diff != "" {
		t.Errorf("tombstone order (-want +got):\n%s", diff)
	}
	repos := []string{"b/x", "a/y", "a-b/z", "a/x", "a.b/z", "~abc/a/x", "~abd/a/x", "~ab/c", "~abc/b/y", "~abc"}
	for _, r := range repos {
		apply(t, s, write(r, at(0), contents{"k": "v"}))
	}
	want = append(repos, repo)
	slices.Sort(want)
	// A prefix lists the repositories whose names start with it, bytewise
	// (personal ones by their space), and nothing else.
	for prefix, want := range map[string][]string{
		"":      want,
		"a/":    {"a/x", "a/y"},
		"a":     {"a-b/z", "a.b/z", "a/x", "a/y", repo}, // acme/api
		"~abc/": {"~abc/a/x", "~abc/b/y"},
		"~ab":   {"~ab/c", "~abc", "~abc/a/x", "~abc/b/y", "~abd/a/x"},
		"~abe/": nil,
		"zz":    nil,
	} {
		listed, err := s.Repos(context.Background(), prefix)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, st := range listed {
			got = append(got, st.Repo)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Repos(%q) (-want +got):\n%s", prefix, diff)
		}
	}
}

func testLargeContent(t *testing.T, s server.Store) {
	// 250,000 bytes of mixed one- to four-byte UTF-8 and a NUL-free
	// Markdown-ish body.
	unit := "line é 日本 😀 \\ ' \" %\n"
	big := strings.Repeat(unit, 250_000/len(unit))
	big += strings.Repeat("x", 250_000-len(big))
	c := contents{"big.md": big}
	res := apply(t, s, write(repo, at(0), c))
	wantState(t, res.State, repo, 1, c, at(0))
	if diff := cmp.Diff(c, liveContents(t, s, repo)); diff != "" {
		t.Errorf("large content did not round-trip (%d bytes)", len(big))
	}
	rev, err := s.Revision(context.Background(), repo, "big.md", 1)
	if err != nil || rev.Content != big || rev.Size != 250_000 {
		t.Errorf("Revision of large content: size %d, %v; want the 250,000 bytes back", rev.Size, err)
	}
}

func testCancelled(t *testing.T, s server.Store) {
	apply(t, s, write(repo, at(0), contents{"a.md": "1"}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := map[string]func() error{
		"Apply": func() error {
			_, err := s.Apply(ctx, write(repo, at(1), contents{"b.md": "2"}))
			return err
		},
		"Snapshot": func() error {
			_, err := s.Snapshot(ctx, repo, server.ReadOptions{WithContent: true})
			return err
		},
		"RepoState": func() error { _, err := s.RepoState(ctx, repo); return err },
		"History":   func() error { _, err := s.History(ctx, repo, "a.md", 0, 0); return err },
		"Repos":     func() error { _, err := s.Repos(ctx, ""); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context = %v; want an error wrapping context.Canceled", name, err)
		}
	}
	st, err := s.RepoState(context.Background(), repo)
	if err != nil || st.Version != 1 {
		t.Errorf("state after a cancelled Apply = %+v, %v; want version 1", st, err)
	}
}
