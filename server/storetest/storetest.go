// Package storetest is the conformance suite every server.Store passes:
// server/sqlite and server/postgres each call Run from a test.
package storetest

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
)

// Run runs the suite. open returns a new, empty store for each subtest; the
// caller closes it (for example in t.Cleanup).
func Run(t *testing.T, open func(t *testing.T) server.Store) {
	cases := []struct {
		name string
		fn   func(t *testing.T, s server.Store)
	}{
		{"NeverWritten", testNeverWritten},
		{"FirstWrite", testFirstWrite},
		{"IdenticalContent", testIdenticalContent},
		{"NoOpWrites", testNoOpWrites},
		{"Tombstones", testTombstones},
		{"Since", testSince},
		{"IfMatch", testIfMatch},
		{"IfNoneMatch", testIfNoneMatch},
		{"MaxEntries", testMaxEntries},
		{"MaxRepoBytes", testMaxRepoBytes},
		{"KeyCollision", testKeyCollision},
		{"History", testHistory},
		{"Histories", testHistories},
		{"Revision", testRevision},
		{"LastAuthors", testLastAuthors},
		{"ServerID", testServerID},
		{"SeenChecksums", testSeenChecksums},
		{"Activity", testActivity},
		{"Events", testEvents},
		{"Repos", testRepos},
		{"PurgeTombstones", testPurgeTombstones},
		{"ConcurrentCAS", testConcurrentCAS},
		{"GroupManyRepos", testGroupManyRepos},
		{"GroupFailuresStayAlone", testGroupFailuresStayAlone},
		{"GroupConditionalChain", testGroupConditionalChain},
		{"ByteOrder", testByteOrder},
		{"LargeContent", testLargeContent},
		{"Cancelled", testCancelled},
		{"Stream", testStream},
		{"Precondition", testPrecondition},
		{"FreshReads", testFreshReads},
		{"MetaSnapshot", testMetaSnapshot},
		{"SearchWords", testSearchWords},
		{"SearchLive", testSearchLive},
		{"SearchRanking", testSearchRanking},
		{"SearchIndexLinks", testSearchIndexLinks},
		{"SearchRecency", testSearchRecency},
		{"SearchStems", testSearchStems},
		{"SearchTiers", testSearchTiers},
		{"SearchRepos", testSearchRepos},
		{"SearchHostile", testSearchHostile},
		{"SearchPersonal", testSearchPersonal},
		{"Erase", testErase},
		{"SearchCandidates", testSearchCandidates},
		{"SearchScopeForged", testSearchScopeForged},
		{"SearchPersonalCandidates", testSearchPersonalCandidates},
		{"Provenance", testProvenance},
		{"ProvenanceGrouped", testProvenanceGrouped},
		{"KeyRevisions", testKeyRevisions},
		{"ReviewPolicy", testReviewPolicy},
		{"WritePolicy", testWritePolicy},
		{"ReviewStaleGuess", testReviewStaleGuess},
		{"Proposals", testProposals},
		{"DecideProposal", testDecideProposal},
		{"ReviewChanges", testReviewChanges},
		{"ReviewApprove", testReviewApprove},
		{"ReviewHostile", testReviewHostile},
		{"ReviewWhole", testReviewWhole},
		{"ReviewAudit", testReviewAudit},
		{"UpkeepAudit", testUpkeepAudit},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open(t)) })
	}
}

// t0 is the time of the first write of every test; later writes add
// seconds.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 123456000, time.UTC)

func at(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

// put builds one Put with its checksum.
func put(key, content string) server.Put {
	return server.Put{Key: key, Content: content, Checksum: protocol.EntryChecksum([]byte(content))}
}

// contents maps keys to contents; its puts are sorted by key.
type contents map[string]string

func (c contents) puts() []server.Put {
	var ps []server.Put
	for _, k := range slices.Sorted(maps.Keys(c)) {
		ps = append(ps, put(k, c[k]))
	}
	return ps
}

// checksum computes the dataset checksum of c independently of any store.
func (c contents) checksum() string {
	sums := map[string]string{}
	for k, v := range c {
		sums[k] = protocol.EntryChecksum([]byte(v))
	}
	return protocol.DatasetChecksum(sums)
}

func (c contents) bytes() int64 {
	var n int64
	for _, v := range c {
		n += int64(len(v))
	}
	return n
}

// write is a Write of puts and deletes (sorted here) at a time.
func write(repo string, when time.Time, c contents, deletes ...string) server.Write {
	return server.Write{Repo: repo, Puts: c.puts(), Deletes: slices.Sorted(slices.Values(deletes)),
		Author: "alice", Provenance: provOf("alice"), At: when}
}

func apply(t *testing.T, s server.Store, w server.Write) server.WriteResult {
	t.Helper()
	res, err := s.Apply(context.Background(), w)
	if err != nil {
		t.Fatalf("Apply(%s): %v", w.Repo, err)
	}
	return res
}

func snapshot(t *testing.T, s server.Store, repo string, opts server.ReadOptions) server.Snapshot {
	t.Helper()
	snap, err := s.Snapshot(context.Background(), repo, opts)
	if err != nil {
		t.Fatalf("Snapshot(%s, %+v): %v", repo, opts, err)
	}
	return snap
}

// liveContents returns the live entries of repo as contents, checking that
// each entry's checksum and size agree with its content.
func liveContents(t *testing.T, s server.Store, repo string) contents {
	t.Helper()
	got := contents{}
	for _, e := range snapshot(t, s, repo, server.ReadOptions{WithContent: true}).Live {
		if e.Checksum != protocol.EntryChecksum([]byte(e.Content)) || e.Size != int64(len(e.Content)) {
			t.Errorf("entry %s: checksum %s size %d do not match its content", e.Key, e.Checksum, e.Size)
		}
		got[e.Key] = e.Content
	}
	return got
}

// wantState checks the repository state against the expected contents.
func wantState(t *testing.T, got server.RepoState, repo string, version int64, c contents, when time.Time) {
	t.Helper()
	want := server.RepoState{Repo: repo, Version: version, Checksum: c.checksum(), Entries: len(c),
		Bytes: c.bytes(), UpdatedAt: when}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
}

func wantErr(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v; want one wrapping %v", err, target)
	}
}

func keys(entries []server.Entry) []string {
	ks := []string{}
	for _, e := range entries {
		ks = append(ks, e.Key)
	}
	return ks
}

func tombKeys(ts []server.Tombstone) []string {
	ks := []string{}
	for _, d := range ts {
		ks = append(ks, d.Key)
	}
	return ks
}
