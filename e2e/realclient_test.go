//go:build unix

package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client/teamblock"
	"github.com/teammem/teammem/testkit/gittest"
	"github.com/teammem/teammem/testkit/realclient"
)

// importShape is one way a hostile teammate may try to make the victim's
// client import a file outside the team folder: a key (uploaded with a
// link to it in the team index) or an index line alone, aimed at one
// canary file.
type importShape struct {
	name   string
	key    string // "" for an index line alone; {out} is the outside folder
	line   string // the team index line; {out} as in key
	canary string // the file it aims at: relative to the checkout, "~/" the home, "{out}/" the outside folder
}

// importShapes are the hostile shapes of issue 22 and those found since
// (the fuzz targets FuzzRenderNoImport and FuzzExtractIncludes).
var importShapes = []importShape{
	{"key with space-@ and #", "a @.env#.md", "- [Runbook](a%20@.env%23.md) — runbook", ".env"},
	{"key aiming at .git/config", "b @.git/config#.md", "- [Git](b%20@.git/config%23.md) — git notes", ".git/config"},
	{"key aiming into a folder", "c @config/secrets.yml#.md", "- [Secrets](c%20@config/secrets.yml%23.md) — where", "config/secrets.yml"},
	{"key aiming at the home", "d @~/home-canary.md#.md", "- [Home](d%20@~/home-canary.md%23.md) — home", "~/home-canary.md"},
	{"key aiming at an absolute path", "e @{out}/abs-canary.md#.md", "- [Abs](e%20@{out}/abs-canary.md%23.md) — abs", "{out}/abs-canary.md"},
	{"key with NBSP-@", "f\u00a0@nbsp/.env#.md", "- [N](f%C2%A0@nbsp/.env%23.md) — nbsp", "nbsp/.env"},
	{"key with fullwidth ＠", "g ＠fw/.env#.md", "- [F](g%20%EF%BC%A0fw/.env%23.md) — fullwidth", "fw/.env"},
	{"key with CR-@", "h\r@cr/.env#.md", "- [C](h%0D@cr/.env%23.md) — cr", "cr/.env"},
	{"key with U+2028-@", "i\u2028@ls/.env#.md", "- [L](i%E2%80%A8@ls/.env%23.md) — ls", "ls/.env"},
	{"index word ending in a backtick (padded code span)", "", "- note @pad/.env#`", "pad/.env"},
	{"index word with U+FEFF before @", "", "- note x\ufeff@feff/.env#", "feff/.env"},
	{"index link label ending in a backtick", "", "- [@label/.env#`](deploys.md) — label", "label/.env"},
	{"index code span with space-@", "", "- see `x @code/.env#` here", "code/.env"},
	{"index list in a quote", "", "> - x @quote/.env#`", "quote/.env"},
	{"index NBSP-@", "", "- see\u00a0@nbsp2/.env#x", "nbsp2/.env"},
	{"index escaped backslash before @", "", `- see \\@bs/.env and \@bs/.env`, "bs/.env"},
	{"index fullwidth ＠", "", "- see ＠fw2/.env", "fw2/.env"},
	{"index CR and U+2028 before @", "", "- see\r@cr2/.env and\u2028@cr2/.env", "cr2/.env"},
	{"index link title", "", "- [T](deploys.md \"a @title/.env#\") — title", "title/.env"},
	{"index paragraph", "", "para @para/.env#`", "para/.env"},
}

// modelLines are hand-written imports ({t} the target) on which memcore's
// model of the client's scan must agree with the client: list items read
// raw, paragraphs read between inline tokens, escapes, U+FEFF.
var modelLines = []string{
	"- [x](</t/a @{t}#.md>) — a destination in a list item",
	"- note `` @{t}#` `` in a list item",
	"para `` @{t} `` in a paragraph",
	`para \\@{t} after an escaped backslash`,
	`- x \@{t} escaped in a list item`,
	"para y\ufeff@{t} after U+FEFF",
	"[l](</t/b @{t}>) a destination in a paragraph",
	"- `c`@{t} after a code span in a list item",
	"# H @{t}",
	"> quoted @{t}",
	"> quoted `` @{t} `` code span",
}

// TestRealClientLoadsNothingOutsideTheTeamFolder is issue 22's boundary,
// held against the real Claude Code: a hostile teammate pushes every
// shape of importShapes in one PUT, the victim runs `teammem-agent sync`,
// and a `claude -p` session in the victim's checkout (against a stand-in
// for the Messages API that records what the client sends) must carry no
// canary, while the team index does reach the model. The checkout's
// CLAUDE.md holds the block rendered from the same index with every key
// taken as an existing file — what a server and an agent that accepted
// every key would write — so the renderer is held on its own too, not
// only behind the key grammar.
func TestRealClientLoadsNothingOutsideTheTeamFolder(t *testing.T) {
	versions := []string{realclient.ClaudeCodeNode, realclient.ClaudeCodeNative}
	clients := make([]*realclient.ClaudeCode, len(versions))
	for i, v := range versions {
		clients[i] = realclient.ClaudeCodeForTest(t, v)
	}
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	h := pushHostile(t, srv)
	checkout, home, outside, teamDir, state, nonce := h.checkout, h.home, h.outside, h.teamDir, h.state, h.nonce
	canaries, entries, positive, index := h.canaries, h.entries, h.positive, h.index

	syncOK(t, srv, teamDir, state, "--repo-dir", checkout)
	if !strings.Contains(blockOf(checkout), positive) {
		t.Fatalf("the team index did not reach the victim's block:\n%s", read(checkout, "CLAUDE.local.md"))
	}
	bypass := teamblock.Render(teamblock.Input{Repo: repo, TeamDir: teamDir, Index: entries["MEMORY.md"]})
	// The user's own team folder path may hold " @" and "#" too: the
	// guidance's code spans and every link's destination then do.
	odd := teamblock.Render(teamblock.Input{Repo: repo, TeamDir: "/srv/team @guard/.env#/t", Index: index[0]})
	canaries["CANARY-team-folder-path-"+nonce] = "team folder path with space-@"
	plantCanary(t, checkout, home, outside, "guard/.env", "CANARY-team-folder-path-"+nonce)
	// Imports written by hand, not by the renderer: memcore's model of
	// the client's scan (memory prompt) must load what the client loads.
	model := map[string]string{} // canary text → the line aiming at it
	var hand []string
	for i, line := range modelLines {
		target := fmt.Sprintf("m%d/.env", i)
		text := fmt.Sprintf("MODEL-%d-%s", i, nonce)
		model[text] = strings.ReplaceAll(line, "{t}", target)
		plantCanary(t, checkout, home, outside, target, text)
		hand = append(hand, model[text])
	}
	write(t, checkout, "CLAUDE.md", "# Project\n\n"+bypass.Text+"\n"+odd.Text+"\n"+strings.Join(hand, "\n\n")+"\n")
	code, mp := runMemory(t, "prompt", "--cwd", checkout, "--home", home)
	if code != 0 || !strings.Contains(mp.stdout.String(), positive) {
		t.Fatalf("memory prompt (exit %d) lacks the team index:\n%s\n%s", code, mp.stdout, mp.stderr)
	}
	for text, shape := range canaries {
		if strings.Contains(mp.stdout.String(), text) {
			t.Errorf("memory prompt loads the canary of %q", shape)
		}
	}

	for _, c := range clients {
		t.Run(c.Version, func(t *testing.T) {
			msgs := realclient.MessagesAPI(t, "ok")
			out := c.Print(t, realclient.Session{Dir: checkout, Home: home, BaseURL: msgs.URL()}, "hi")
			if out.Err != nil {
				t.Fatalf("claude -p: %v\nstdout: %s\nstderr: %s", out.Err, out.Stdout, out.Stderr)
			}
			if !msgs.Sent(positive) {
				t.Fatalf("the team index never reached the model (%d requests): the test proves nothing", len(msgs.Requests()))
			}
			h.leaked(t, "Claude Code "+c.Version, msgs.Sent)
			for text, line := range model {
				if client, ours := msgs.Sent(text), strings.Contains(mp.stdout.String(), text); client != ours {
					t.Errorf("%q: Claude Code %s loads its import: %v; memcore's model (memory prompt): %v", line, c.Version, client, ours)
				}
			}
		})
	}
}

// hostileRun is a victim's checkout, home and team folder with every
// shape of importShapes pushed to the server by a teammate in one PUT
// (keys and index lines) and a canary planted where each shape aims.
type hostileRun struct {
	checkout, home, outside, teamDir, state string
	nonce, positive                         string
	canaries                                map[string]string // canary text → shape
	entries                                 map[string]string // what the teammate pushed
	index                                   []string          // the team index's lines; the first links deploys.md and holds positive
}

// pushHostile makes a hostileRun: the victim's files and the teammate's
// PUT, which the server must take (one bad entry never refuses a push).
func pushHostile(t *testing.T, srv *serverProc) hostileRun {
	t.Helper()
	h := hostileRun{home: t.TempDir(), outside: t.TempDir(), teamDir: t.TempDir(), state: t.TempDir(), nonce: randomHex(t),
		canaries: map[string]string{}, entries: map[string]string{"deploys.md": "Run make deploy.\n"}}
	h.checkout, _ = gittest.NewCheckout(t, "git@github.com:"+repo+".git")
	h.positive = "POSITIVE-" + h.nonce
	expand := func(s string) string { return strings.ReplaceAll(s, "{out}", strings.TrimPrefix(h.outside, "/")) }
	h.index = []string{"- [Deploys](deploys.md) — deploy runbook " + h.positive}
	for _, s := range importShapes {
		text := "CANARY-" + strings.ReplaceAll(s.name, " ", "-") + "-" + h.nonce
		h.canaries[text] = s.name
		plantCanary(t, h.checkout, h.home, h.outside, s.canary, text)
		if s.key != "" {
			h.entries[expand(s.key)] = "x\n"
		}
		h.index = append(h.index, expand(s.line))
	}
	// A topic whose references the victim's checkout lacks: the line
	// linking it ends with a stale warning naming them, text the teammate
	// chose. References aimed at a canary as imports are no references.
	stale := "CANARY-stale-reference-" + h.nonce
	h.canaries[stale] = "stale-reference warning"
	plantCanary(t, h.checkout, h.home, h.outside, "stale/.env", stale)
	h.entries["release.md"] = "---\nrefs: [\"gone/release.sh\", \"@stale/.env\", \"x @stale/.env\", \"gone/a.go:@stale/.env\", \"`@stale/.env`\"]\n---\n" +
		"Release with `gone/release.sh`, `@stale/.env`, [notes](@stale/.env) and `Run` in @stale/.env or `gone/run.go`.\n"
	h.index = append(h.index, "- [Release](release.md) — release notes")
	h.entries["MEMORY.md"] = strings.Join(h.index, "\n") + "\n"
	res, err := srv.api.Put(context.Background(), repo, api.PutRequest{Entries: h.entries}, "")
	if err != nil {
		t.Fatalf("the hostile PUT was refused as a whole: %v", err)
	}
	t.Logf("the server skipped %d of %d entries", len(res.Skipped), len(h.entries))
	return h
}

// staleWarning is the stale warning the block shows for pushHostile's
// release.md in a checkout that lacks what it references.
const staleWarning = "⚠ stale: `gone/release.sh`, `gone/run.go` — check the code before trusting it"

// leaked fails the test for every canary of h that rec sent to the model,
// and when the stale warning of release.md (which teammate text reaches
// the model through) did not reach it.
func (h hostileRun) leaked(t *testing.T, client string, sent func(string) bool) {
	t.Helper()
	if !sent(staleWarning) {
		t.Errorf("%s: the stale warning %q never reached the model", client, staleWarning)
	}
	var shapes []string
	for text, shape := range h.canaries {
		if sent(text) {
			shapes = append(shapes, shape)
		}
	}
	slices.Sort(shapes)
	for _, shape := range shapes {
		t.Errorf("%s loaded the canary of %q into the model's context", client, shape)
	}
}

// plantCanary writes text into the file a shape aims at.
func plantCanary(t *testing.T, checkout, home, outside, target, text string) {
	t.Helper()
	var p string
	switch {
	case strings.HasPrefix(target, "~/"):
		p = filepath.Join(home, target[2:])
	case strings.HasPrefix(target, "{out}/"):
		p = filepath.Join(outside, strings.TrimPrefix(target, "{out}/"))
	default:
		p = filepath.Join(checkout, filepath.FromSlash(target))
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	prefix := "SECRET="
	if strings.HasSuffix(p, "config") {
		prefix = "# "
	}
	if _, err := f.WriteString(prefix + text + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func randomHex(t *testing.T) string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// TestLegacyAtKeyNeverLinkedAndNamedInStatus is a server that holds a key
// from before the key grammar refused "@" (or a hostile server): sync
// writes no such file, the block leaves its index line out, and `status`
// names the key.
func TestLegacyAtKeyNeverLinkedAndNamedInStatus(t *testing.T) {
	checkout, _ := gittest.NewCheckout(t, "git@github.com:"+repo+".git")
	const key = "a @.env#.md"
	srv := fakeServer(t, map[string]string{
		"MEMORY.md": "- [Runbook](a%20@.env%23.md) — runbook\n- [Deploys](deploys.md) — deploys\n",
		key:         "x\n", "deploys.md": "Run make deploy.\n"})
	dir, state := t.TempDir(), t.TempDir()
	args := []string{"--server", srv.URL, "--repo", repo, "--dir", dir, "--state-dir", state, "--json"}
	p := startProc(t, agentBin, append([]string{"sync", "--repo-dir", checkout}, args...)...)
	p.wait()
	if read(dir, key) != absent {
		t.Errorf("sync wrote %q", key)
	}
	block := blockOf(checkout)
	if !strings.Contains(block, "deploys.md") || strings.Contains(block, "Runbook") || strings.Contains(block, ".env") {
		t.Errorf("the block links the legacy key or lost the valid line:\n%s", block)
	}
	st := startProc(t, agentBin, append([]string{"status"}, args...)...)
	st.wait()
	if out := st.stdout.String(); !strings.Contains(out, `"a @.env#.md"`) || !strings.Contains(out, "not a valid key") {
		t.Errorf("status does not name the legacy key:\n%s\n%s", out, st.stderr)
	}
}
