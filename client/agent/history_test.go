package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/memcore/protocol"
)

// historyFake is a HistoryRemote over a list of revisions of one key;
// conflicts makes that many PUTs answer 412 first.
type historyFake struct {
	revs      []api.RevisionContent // oldest first
	conflicts int
	puts      []string // If-Match of every PUT
}

func (f *historyFake) Activity(context.Context, string, client.HistoryOptions) (*api.Activity, error) {
	return nil, errors.New("not used")
}

func (f *historyFake) History(_ context.Context, repo, key string, o client.HistoryOptions) (*api.History, error) {
	h := &api.History{Repo: repo, Key: key}
	for i := len(f.revs) - 1; i >= 0; i-- {
		r := f.revs[i]
		if (o.Before == 0 || r.Version < o.Before) && (o.Limit == 0 || len(h.Revisions) < o.Limit) {
			h.Revisions = append(h.Revisions, api.Revision{Version: r.Version, Op: r.Op, Checksum: r.Checksum})
		}
	}
	return h, nil
}

func (f *historyFake) Revision(_ context.Context, _, _ string, v int64) (*api.RevisionContent, error) {
	for _, r := range f.revs {
		if r.Version == v {
			return &r, nil
		}
	}
	return nil, client.ErrNotFound
}

func (f *historyFake) Hashes(context.Context, string) (*api.Hashes, error) {
	last := f.revs[len(f.revs)-1]
	h := &api.Hashes{Version: last.Version, Checksum: "sum-" + string(rune('0'+last.Version)), EntryChecksums: map[string]string{}}
	if last.Op == api.OpPut {
		h.EntryChecksums[last.Key] = last.Checksum
	}
	return h, nil
}

func (f *historyFake) Put(ctx context.Context, _ string, req api.PutRequest, ifMatch string) (*api.PutResponse, error) {
	f.puts = append(f.puts, ifMatch)
	if p := client.ProvenanceOf(ctx); p.Surface != "restore" {
		return nil, fmt.Errorf("a restore pushed as surface %q", p.Surface)
	}
	if f.conflicts > 0 {
		f.conflicts--
		return nil, client.ErrPreconditionFailed
	}
	var changed []string
	for k, c := range req.Entries {
		changed = append(changed, k)
		f.revs = append(f.revs, api.RevisionContent{Key: k, Version: int64(len(f.revs) + 1), Op: api.OpPut,
			Checksum: protocol.EntryChecksum([]byte(c)), Content: c})
	}
	return &api.PutResponse{Version: int64(len(f.revs)), Changed: changed}, nil
}

func rev(v int64, op, content string) api.RevisionContent {
	r := api.RevisionContent{Key: "k.md", Version: v, Op: op, Checksum: protocol.EntryChecksum([]byte(content))}
	if op == api.OpPut {
		r.Content = content
	}
	return r
}

func TestRestore(t *testing.T) {
	secret := "token ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d" // a made-up token of the right shape
	tests := []struct {
		name      string
		revs      []api.RevisionContent
		version   int64
		conflicts int
		wantErr   error
		wantFrom  int64
		wantPuts  int
	}{
		{"deleted key gets its last content", []api.RevisionContent{rev(1, "put", "one"), rev(2, "put", "two"), rev(3, "delete", "two")}, 0, 0, nil, 2, 1},
		{"older version of a live key", []api.RevisionContent{rev(1, "put", "one"), rev(2, "put", "two")}, 1, 0, nil, 1, 1},
		{"a version between revisions", []api.RevisionContent{rev(1, "put", "one"), rev(5, "put", "two")}, 4, 0, nil, 1, 1},
		{"live key without a version", []api.RevisionContent{rev(1, "put", "one")}, 0, 0, ErrNothingToRestore, 0, 0},
		{"a version at which it was deleted", []api.RevisionContent{rev(1, "put", "one"), rev(2, "delete", "one"), rev(3, "put", "x")}, 2, 0, ErrNoSuchVersion, 0, 0},
		{"before the key existed", []api.RevisionContent{rev(3, "put", "one")}, 2, 0, ErrNoSuchVersion, 0, 0},
		{"a version holding a secret", []api.RevisionContent{rev(1, "put", secret), rev(2, "delete", secret)}, 0, 0, ErrSecretInVersion, 0, 0},
		{"another writer first", []api.RevisionContent{rev(1, "put", "one"), rev(2, "delete", "one")}, 0, 2, nil, 1, 3},
		{"another writer every time", []api.RevisionContent{rev(1, "put", "one"), rev(2, "delete", "one")}, 0, 99, client.ErrPreconditionFailed, 0, maxRestoreAttempts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &historyFake{revs: tt.revs, conflicts: tt.conflicts}
			got, err := Restore(context.Background(), f, "acme/api", "k.md", tt.version)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Restore = %+v, %v; want %v", got, err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "ghp_") {
					t.Errorf("the error shows the secret: %v", err)
				}
			} else if err != nil || got.FromVersion != tt.wantFrom || got.Unchanged {
				t.Fatalf("Restore = %+v, %v; want from version %d", got, err, tt.wantFrom)
			}
			if len(f.puts) != tt.wantPuts {
				t.Errorf("%d PUTs; want %d", len(f.puts), tt.wantPuts)
			}
			for _, m := range f.puts {
				if m == "" {
					t.Error("an unconditional PUT")
				}
			}
		})
	}
}
