package agent

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/memcore/secrets/secretstest"
)

func TestBatches(t *testing.T) {
	big := strings.Repeat("x", 250)
	tests := []struct {
		name    string
		changes []Change
		max     int
		want    []api.PutRequest
	}{
		{name: "nothing", want: nil},
		{
			name:    "one batch in key order with deletes",
			changes: []Change{{Key: "b.md", Content: "2"}, {Key: "a.md", Delete: true}, {Key: "c.md", Content: "3"}},
			max:     100,
			want: []api.PutRequest{{Entries: map[string]string{"b.md": "2", "c.md": "3"},
				SoftDeleteKeys: []string{"a.md"}}},
		},
		{
			name: "split at the budget",
			changes: []Change{{Key: "a.md", Content: strings.Repeat("a", 40)}, {Key: "b.md", Content: strings.Repeat("b", 40)},
				{Key: "c.md", Content: strings.Repeat("c", 40)}},
			max: 100, // each change is 44 bytes: two fit, the third does not
			want: []api.PutRequest{
				{Entries: map[string]string{"a.md": strings.Repeat("a", 40), "b.md": strings.Repeat("b", 40)}},
				{Entries: map[string]string{"c.md": strings.Repeat("c", 40)}},
			},
		},
		{
			name:    "an oversized entry goes alone",
			changes: []Change{{Key: "a.md", Content: "1"}, {Key: "b.md", Content: big}, {Key: "c.md", Content: "3"}},
			max:     100,
			want: []api.PutRequest{
				{Entries: map[string]string{"a.md": "1"}},
				{Entries: map[string]string{"b.md": big}},
				{Entries: map[string]string{"c.md": "3"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Batches(tt.changes, tt.max)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Batches (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBatchesDefaultBudget(t *testing.T) {
	var changes []Change
	for i := range 30 {
		changes = append(changes, Change{Key: string(rune('a'+i%26)) + strings.Repeat("k", i) + ".md",
			Content: strings.Repeat("x", 20_000)})
	}
	total := 0
	for _, b := range Batches(changes, 0) {
		size := 0
		for k, v := range b.Entries {
			size += len(k) + len(v)
		}
		if size > DefaultBatchBytes {
			t.Errorf("batch of %d bytes", size)
		}
		total += len(b.Entries)
	}
	if total != len(changes) {
		t.Errorf("%d entries batched, want %d", total, len(changes))
	}
}

func TestCheckEntry(t *testing.T) {
	token := secretstest.GitHubToken()
	tests := []struct {
		name    string
		key     string
		content string
		max     int
		want    error
		msgHas  []string
		msgNot  string
	}{
		{name: "ordinary", key: "a.md", content: "# notes\n"},
		{name: "too large", key: "a.md", content: "12345", max: 4, want: ErrEntryTooLarge, msgHas: []string{`"a.md"`, "5 bytes"}},
		{name: "not utf-8", key: "a.md", content: "bad \xff byte", want: ErrNotUTF8, msgHas: []string{`"a.md"`}},
		{name: "secret", key: "n/s.md", content: "line one\ntoken " + token + "\n", want: ErrSecretFound,
			msgHas: []string{`"n/s.md"`, "github-pat", "GitHub personal access token", "line 2"}, msgNot: token},
		{name: "invalid key", key: "a\x1b.md", content: "x", want: ErrKeyInvalid, msgHas: []string{`"a\x1b.md"`}},
		{name: "credential in the name", key: "n/" + token + ".md", content: "clean\n", want: ErrSecretInName,
			msgHas: []string{`"n/[REDACTED].md"`, "github-pat", "rename"}, msgNot: token},
		{name: "credential in an invalid name", key: token + ".sh", content: "clean\n", want: ErrSecretInName,
			msgHas: []string{`"[REDACTED].sh"`}, msgNot: token},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckEntry(tt.key, []byte(tt.content), tt.max)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("CheckEntry = %v, want %v", err, tt.want)
			}
			if err == nil {
				return
			}
			msg := err.Error()
			for _, s := range tt.msgHas {
				if !strings.Contains(msg, s) {
					t.Errorf("message %q lacks %q", msg, s)
				}
			}
			if tt.msgNot != "" && strings.Contains(msg, tt.msgNot) {
				t.Errorf("message %q reveals the secret", msg)
			}
		})
	}
}
