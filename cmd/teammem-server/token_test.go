package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
)

// cli runs one command and returns its exit code, stdout and stderr.
func cli(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := run(ctx, args, env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }})
	return exitCode(&errb, err), out.String(), errb.String()
}

var tokenIDRE = regexp.MustCompile(`^token id ([0-9a-f]{24}) `)

// createToken runs token create and returns the token (alone on stdout)
// and its id (on stderr), checking it is the token's jti.
func createToken(t *testing.T, dir, subject string) (token, id string) {
	t.Helper()
	code, out, errs := cli(t, "token", "create", "--data-dir", dir, "--subject", subject, "--grant", "acme/*:write")
	token = strings.TrimSuffix(out, "\n")
	m := tokenIDRE.FindStringSubmatch(errs)
	if code != 0 || strings.Count(token, ".") != 2 || strings.ContainsAny(token, "\n ") || m == nil {
		t.Fatalf("token create: exit %d, stdout %q, stderr %q; want the token alone on stdout, its id on stderr", code, out, errs)
	}
	payload, _ := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[1])
	var claims struct{ Jti string }
	if err := json.Unmarshal(payload, &claims); err != nil || claims.Jti != m[1] {
		t.Fatalf("stderr names id %s, the token's jti is %q (%v)", m[1], claims.Jti, err)
	}
	return token, m[1]
}

// waitStatus polls GET until it answers want (the servers' revocation
// lists are refreshed every --revocation-refresh) and returns the body.
func waitStatus(t *testing.T, base, token string, want int) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, body := request(t, http.MethodGet, base+api.PathTeamMemory+"?repo=acme/api", token, "")
		if code == want {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET answers %d %s; want %d", code, body, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTokenRevoke revokes through the command line while the server runs
// on the embedded store: by id, then by subject and time; the server
// refuses exactly those tokens with a 401 saying why.
func TestTokenRevoke(t *testing.T) {
	dir := t.TempDir()
	base, logs := startServer(t, dir, "--revocation-refresh", "100ms")
	first, firstID := createToken(t, dir, "ci")
	second, _ := createToken(t, dir, "ci")
	other, _ := createToken(t, dir, "olga")
	for _, tok := range []string{first, second, other} {
		waitStatus(t, base, tok, 404) // accepted: the repository does not exist
	}

	code, out, errs := cli(t, "token", "revoke", "--data-dir", dir, "--id", firstID)
	if code != 0 || !strings.Contains(out, "revoked token "+firstID) {
		t.Fatalf("token revoke --id: exit %d, %q %q", code, out, errs)
	}
	body := waitStatus(t, base, first, 401)
	var env api.ErrorEnvelope
	if err := json.Unmarshal([]byte(body), &env); err != nil || env.Error.Code() != api.CodeUnauthenticated || !strings.Contains(env.Error.Message, "revoked") {
		t.Errorf("401 body %s; want the unauthenticated envelope saying revoked", body)
	}
	if !regexp.MustCompile(`request refused.*status=401 reason=".*revoked`).MatchString(logs.String()) {
		t.Errorf("no 401 log line with the revocation as reason:\n%s", logs.String())
	}
	waitStatus(t, base, second, 404)

	code, out, errs = cli(t, "token", "revoke", "--data-dir", dir, "--subject", "ci", "--before", "now")
	if code != 0 || !strings.Contains(out, "revoked the tokens of ci issued before") {
		t.Fatalf("token revoke --subject --before now: exit %d, %q %q", code, out, errs)
	}
	waitStatus(t, base, second, 401)
	waitStatus(t, base, other, 404)
	newer, _ := createToken(t, dir, "ci") // created after the command returned: valid
	time.Sleep(300 * time.Millisecond)    // past a refresh
	waitStatus(t, base, newer, 404)

	code, out, _ = cli(t, "token", "list-revoked", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, firstID) || !regexp.MustCompile(`subject\s+ci\s+\d{4}-`).MatchString(out) {
		t.Errorf("token list-revoked: exit %d\n%s", code, out)
	}
}

const validID = "0123456789abcdef01234567"

// TestTokenList: token create records each token (never the token
// itself) and the first start records admin.token; token list shows them
// with their grants and state; a revoke of an id no recorded token has is
// refused (the real token would keep working), unless --unrecorded.
func TestTokenList(t *testing.T) {
	dir := t.TempDir()
	startServer(t, dir)
	_, ciID := createToken(t, dir, "ci")
	tok, olgaID := createToken(t, dir, "olga")
	code, out, errs := cli(t, "token", "list", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("token list: exit %d %q", code, errs)
	}
	for _, want := range []string{
		`(?m)^ID\s+SUBJECT\s+GRANTS\s+ISSUED\s+EXPIRES\s+STATE$`,
		`(?m)^[0-9a-f]{24}\s+admin\s+\*\*:admin\s+\d{4}-\S+\s+\d{4}-\S+\s+valid$`,
		`(?m)^` + ciID + `\s+ci\s+acme/\*:write\s+\d{4}-\S+\s+\d{4}-\S+\s+valid$`,
		`(?m)^` + olgaID + `\s+olga\s+acme/\*:write\s+`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("token list lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, tok) || strings.Contains(out, strings.Split(tok, ".")[2]) {
		t.Errorf("token list shows the token itself:\n%s", out)
	}

	code, _, errs = cli(t, "token", "revoke", "--data-dir", dir, "--id", validID)
	if code != 1 || !strings.Contains(errs, "no such token was issued") {
		t.Errorf("revoke of an id never issued: exit %d, %q; want exit 1 saying no such token was issued", code, errs)
	}
	if _, out, _ = cli(t, "token", "list-revoked", "--data-dir", dir); strings.Contains(out, validID) {
		t.Errorf("the refused revoke was recorded:\n%s", out)
	}
	if code, out, errs = cli(t, "token", "revoke", "--data-dir", dir, "--id", ciID); code != 0 {
		t.Fatalf("revoke %s: exit %d %q %q", ciID, code, out, errs)
	}
	if code, out, errs = cli(t, "token", "revoke", "--data-dir", dir, "--unrecorded", "--id", validID); code != 0 || !strings.Contains(out, "revoked token "+validID) {
		t.Errorf("revoke --unrecorded: exit %d %q %q", code, out, errs)
	}
	_, out, _ = cli(t, "token", "list", "--data-dir", dir)
	if !regexp.MustCompile(`(?m)^`+ciID+`\s.*\srevoked \d{4}-\S+$`).MatchString(out) || !regexp.MustCompile(`(?m)^`+olgaID+`\s.*\svalid$`).MatchString(out) {
		t.Errorf("token list after revoking %s:\n%s", ciID, out)
	}
}

// TestTokenRevokeErrors: bad input is refused with a clear message and
// exit 2, a database that is not there with exit 1; nothing is created.
func TestTokenRevokeErrors(t *testing.T) {
	empty := t.TempDir()
	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no command", []string{"token"}, 2, "create, list, revoke or list-revoked"},
		{"unknown command", []string{"token", "destroy"}, 2, `unknown token command "destroy"`},
		{"unknown flag", []string{"token", "revoke", "--id", "x", "--jti", "y"}, 2, "-jti"},
		{"neither id nor subject", []string{"token", "revoke", "--data-dir", empty}, 2, "needs --id JTI, or --subject NAME with --before TIME"},
		{"id and subject", []string{"token", "revoke", "--id", "x", "--subject", "ci", "--before", "now"}, 2, "--id revokes one token"},
		{"subject without before", []string{"token", "revoke", "--subject", "ci"}, 2, "--subject needs --before"},
		{"before without subject", []string{"token", "revoke", "--before", "now"}, 2, "needs --id JTI, or --subject"},
		{"date without time", []string{"token", "revoke", "--subject", "ci", "--before", "2026-12-01"}, 2, "not an RFC 3339 time"},
		{"words", []string{"token", "revoke", "--subject", "ci", "--before", "yesterday"}, 2, "not an RFC 3339 time"},
		{"future", []string{"token", "revoke", "--subject", "ci", "--before", "2999-01-01T00:00:00Z"}, 2, "in the future"},
		{"control character", []string{"token", "revoke", "--id", "a\x1bb", "--data-dir", empty}, 2, "is not a token id"},
		{"id one digit short", []string{"token", "revoke", "--id", "3fa81b066ae4348aaf0e577", "--data-dir", empty}, 2, "is not a token id: an id is the 24 hex digits"},
		{"id not hex", []string{"token", "revoke", "--id", "deadbeef", "--data-dir", empty}, 2, "is not a token id"},
		{"unrecorded id still checked", []string{"token", "revoke", "--unrecorded", "--id", "a\x1bb", "--data-dir", empty}, 2, "not a token id or subject"},
		{"positional", []string{"token", "revoke", "--id", "x", "extra"}, 2, "takes no arguments"},
		{"no database", []string{"token", "revoke", "--id", validID, "--data-dir", empty}, 1, "no embedded database at " + empty},
		{"list-revoked: no database", []string{"token", "list-revoked", "--data-dir", empty}, 1, "no embedded database at " + empty},
		{"list: no database", []string{"token", "list", "--data-dir", empty}, 1, "no embedded database at " + empty},
		{"list: positional", []string{"token", "list", "x"}, 2, "takes no arguments"},
		{"postgres unreachable", []string{"token", "revoke", "--id", validID, "--database-url", "postgres://x@127.0.0.1:1/db?connect_timeout=2"}, 1, "postgres"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := cli(t, tt.args...)
			if code != tt.code || !strings.Contains(errs, tt.want) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, errs, tt.code, tt.want)
			}
		})
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("the commands created %d files in the data dir", len(entries))
	}
	for _, help := range [][]string{{"token", "--help"}, {"token", "revoke", "--help"}, {"token", "list", "--help"}, {"token", "list-revoked", "--help"}} {
		if code, out, errs := cli(t, help...); code != 0 || out+errs == "" {
			t.Errorf("%v: exit %d", help, code)
		}
	}
}

// TestTokenCreateSubjectGrammar: token create refuses a subject that reads
// as another's or takes a reserved name (a usage error saying why, nothing
// printed or recorded) and takes names of any one script; revoke still
// takes any subject, so that a token minted before the rule can be
// withdrawn.
func TestTokenCreateSubjectGrammar(t *testing.T) {
	dir := t.TempDir()
	startServer(t, dir)
	for subject, reason := range map[string]string{
		"ana ":      "space",
		"\u0430na":  "Cyrillic and Latin",
		"oidc:ana":  "reserved for the subjects of OIDC",
		"ana\u202e": "U+202E",
		"":          "--subject is required",
	} {
		code, out, errs := cli(t, "token", "create", "--data-dir", dir, "--subject", subject, "--grant", "acme/*:write")
		if code != 2 || out != "" || !strings.Contains(errs, reason) {
			t.Errorf("token create --subject %q: exit %d, stdout %q, stderr %q; want exit 2 saying %q", subject, code, out, errs, reason)
		}
	}
	createToken(t, dir, "ana.silva@example.com")
	createToken(t, dir, "анна")
	code, out, _ := cli(t, "token", "list", "--data-dir", dir)
	if n := strings.Count(out, "\n"); code != 0 || n != 4 { // header, admin and the two valid ones
		t.Errorf("token list: exit %d, %d lines; want the header and three tokens:\n%s", code, n, out)
	}
	if code, out, errs := cli(t, "token", "revoke", "--data-dir", dir, "--subject", "ana ", "--before", "now"); code != 0 {
		t.Errorf("token revoke --subject %q: exit %d, %q %q; want it revoked", "ana ", code, out, errs)
	}
}
