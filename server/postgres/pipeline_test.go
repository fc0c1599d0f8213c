package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/testkit/pgtest"
)

// checksumOf is the dataset checksum of contents.
func checksumOf(contents map[string]string) string {
	sums := map[string]string{}
	for k, v := range contents {
		sums[k] = protocol.EntryChecksum([]byte(v))
	}
	return protocol.DatasetChecksum(sums)
}

// ifMatch is w made conditional on the dataset holding contents.
func ifMatch(w server.Write, contents map[string]string) server.Write {
	w.IfMatch = server.TagList(checksumOf(contents))
	return w
}

// TestPipelinedGroups: a group sent while the one before it is in flight,
// planned against the state that one leaves, commits after it: a write
// conditional on that state (a chain) succeeds, and the versions follow
// the order of the writes.
func TestPipelinedGroups(t *testing.T) {
	db := open(t, freshURL(t, pgtest.URL(t)), postgres.Options{Migrate: true})
	const repo = "acme/pipeline"
	seed := map[string]string{"seed.md": "seed"}
	if _, err := db.Apply(context.Background(), putWrite(repo, "seed.md", "seed")); err != nil {
		t.Fatal(err)
	}
	afterFirst := map[string]string{"seed.md": "seed", "a.md": "a", "b.md": "b"}
	res, errs, pipelined := postgres.ApplyPipelined(db,
		[]server.Write{ifMatch(putWrite(repo, "a.md", "a"), seed), putWrite(repo, "b.md", "b")},
		[]server.Write{ifMatch(putWrite(repo, "c.md", "c"), afterFirst), putWrite(repo, "d.md", "d")})
	if !pipelined {
		t.Fatal("the second group was not sent while the first was in flight")
	}
	for g := range res {
		for i, err := range errs[g] {
			if err != nil {
				t.Fatalf("group %d write %d: %v", g, i, err)
			}
			if want := int64(2 + 2*g + i); res[g][i].State.Version != want {
				t.Errorf("group %d write %d acknowledged as version %d, want %d", g, i, res[g][i].State.Version, want)
			}
		}
	}
	want := map[string]string{"seed.md": "seed", "a.md": "a", "b.md": "b", "c.md": "c", "d.md": "d"}
	st, err := db.RepoState(context.Background(), repo)
	if err != nil || st.Version != 5 || st.Checksum != checksumOf(want) {
		t.Errorf("state %+v, %v; want version 5 holding %v", st, err, want)
	}
}

// TestPipelinedGroupAfterFailure: when the group in flight fails (here
// Postgres refuses a NUL in text), the group planned against the state it
// would have left is run again against the state there is: its
// unconditional write commits, and its write conditional on the failed
// group's state answers a failed precondition and stores nothing.
func TestPipelinedGroupAfterFailure(t *testing.T) {
	db := open(t, freshURL(t, pgtest.URL(t)), postgres.Options{Migrate: true})
	const repo = "acme/pipeline"
	if _, err := db.Apply(context.Background(), putWrite(repo, "seed.md", "seed")); err != nil {
		t.Fatal(err)
	}
	wouldBe := map[string]string{"seed.md": "seed", "bad.md": "nul \x00 byte"}
	res, errs, pipelined := postgres.ApplyPipelined(db,
		[]server.Write{putWrite(repo, "bad.md", "nul \x00 byte")},
		[]server.Write{putWrite(repo, "c.md", "c"), ifMatch(putWrite(repo, "e.md", "e"), wouldBe)})
	if !pipelined {
		t.Fatal("the second group was not sent while the first was in flight")
	}
	if errs[0][0] == nil {
		t.Fatal("a NUL byte in text was stored")
	}
	if errs[1][0] != nil || res[1][0].State.Version != 2 {
		t.Errorf("unconditional write after the failed group: version %d, %v; want version 2", res[1][0].State.Version, errs[1][0])
	}
	if !errors.Is(errs[1][1], server.ErrPreconditionFailed) {
		t.Errorf("write conditional on the failed group's state: %v; want a failed precondition", errs[1][1])
	}
	want := map[string]string{"seed.md": "seed", "c.md": "c"}
	st, err := db.RepoState(context.Background(), repo)
	if err != nil || st.Version != 2 || st.Checksum != checksumOf(want) {
		t.Errorf("state %+v, %v; want version 2 holding %v", st, err, want)
	}
}
