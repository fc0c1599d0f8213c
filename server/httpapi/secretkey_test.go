package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/memcore/secrets"
	"github.com/teammem/teammem/memcore/secrets/secretstest"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestCredentialKeyRefused: a key carrying a credential is refused like
// content carrying one, at both PUT paths: the entry is left out (200, the
// rest applied, so the stock client keeps syncing), the skip names the
// rule and the key redacted, and the credential is in no answer, log line
// or stored key.
func TestCredentialKeyRefused(t *testing.T) {
	var logs bytes.Buffer
	ts := servertest.Start(t, servertest.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	for _, path := range []string{api.PathTeamMemory, api.PathTeamMemoryAlias} {
		t.Run(path, func(t *testing.T) {
			tok, deep := secretstest.GitHubToken(), secretstest.GitHubToken()
			body, _ := json.Marshal(api.PutRequest{Entries: map[string]string{
				tok + ".md": "hi\n", "notes/" + deep + ".md": "hi\n", "ok.md": "ok at " + path + "\n"}})
			r := ts.Do(http.MethodPut, path+"?repo=acme/api", ts.Admin, body)
			if r.Status != http.StatusOK {
				t.Fatalf("PUT: %d %s; want 200", r.Status, r.Body)
			}
			res := servertest.Decode[api.PutResponse](t, r)
			want := map[string]bool{secrets.Redacted + ".md": true, "notes/" + secrets.Redacted + ".md": true}
			for _, sk := range res.Skipped {
				if !want[sk.Key] || sk.Reason != api.SkipSecretDetected || sk.RuleID != "github-pat" || sk.Label == "" ||
					!strings.Contains(sk.Message, sk.Key) {
					t.Errorf("skipped %+v; want the key redacted, secret_detected, github-pat", sk)
				}
				delete(want, sk.Key)
			}
			if len(want) != 0 || len(res.Skipped) != 2 || !strings.Contains(strings.Join(res.Changed, ","), "ok.md") {
				t.Errorf("PUT = %+v; want both keys skipped and ok.md applied", res)
			}
			got := servertest.Decode[api.TeamMemory](t, ts.Get("repo=acme/api", http.StatusOK))
			for k := range got.Content.Entries {
				if strings.Contains(k, "ghp_") {
					t.Errorf("stored %q", k)
				}
			}
			for _, s := range []string{tok, deep} {
				if strings.Contains(string(r.Body), s) || strings.Contains(logs.String(), s) {
					t.Errorf("the credential of a key was echoed or logged:\n%s\n%s", r.Body, logs.String())
				}
			}
		})
	}
	if !strings.Contains(logs.String(), `"key":"`+secrets.Redacted+`.md","reason":"secret_detected"`) {
		t.Errorf("no log line naming the key redacted:\n%s", logs.String())
	}

	// An invalid soft-delete key, and a key both written and deleted (a
	// 400): named redacted too.
	tok := secretstest.GitHubToken()
	r := ts.Put("acme/api", nil, []string{tok + ".sh"}, http.StatusOK)
	if res := servertest.Decode[api.PutResponse](t, r); len(res.Skipped) != 1 || res.Skipped[0].Key != secrets.Redacted+".sh" ||
		res.Skipped[0].Reason != api.SkipInvalidKey || strings.Contains(string(r.Body), tok) {
		t.Errorf("an invalid soft-delete key holding a credential: %s", r.Body)
	}
	r = ts.Put("acme/api", map[string]string{tok + ".md": "x"}, []string{tok + ".md"}, http.StatusBadRequest)
	if strings.Contains(string(r.Body), tok) || !strings.Contains(string(r.Body), secrets.Redacted) {
		t.Errorf("a credential key both written and deleted: %s", r.Body)
	}
	if strings.Contains(logs.String(), tok) {
		t.Errorf("the credential was logged:\n%s", logs.String())
	}
}

// TestCredentialKeySkipOf: every surface that looks for its key among a
// write's refusals (the web UI's restore) finds a credential key's
// refusal, which names it redacted.
func TestCredentialKeySkipOf(t *testing.T) {
	ts := servertest.Start(t, servertest.Options{})
	key := "notes/" + secretstest.GitHubToken() + ".md"
	admin := server.Principal{Subject: "admin", Grants: []server.Grant{{Glob: []string{"**"}, Perm: server.PermAdmin}}}
	res, err := ts.Service.Put(context.Background(), admin, "acme/api", server.PutInput{Entries: map[string]string{key: "hi\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 1 || !res.Skipped[0].Of(key) || res.Skipped[0].Of("notes/other.md") || res.Skipped[0].Key == key {
		t.Errorf("skipped %+v; want one refusal of the key, named redacted", res.Skipped)
	}
}
