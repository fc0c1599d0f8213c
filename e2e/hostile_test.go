//go:build unix

package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/memcore/protocol"
)

// hostileKeys are keys a hostile server may send that no client may write:
// traversal, absolute and drive paths, encoded separators, look-alike
// slashes and dots, control and invisible characters, Windows device names,
// shell and glob characters, over-long and over-deep paths, non-NFC forms
// and wrong extensions (after memcore's key tests).
var hostileKeys = []string{
	"../x.md", "a/../../b.md", "a/..", "a/./b.md", "../../../../../../tmp/pwned.md",
	"%2e%2e/x.md", "..%2fx.md", "a%2f..%2fx.md", "..\\x.md", "a\\b.md",
	"/etc/x.md", "C:\\x.md", "C:x.md", "\\\\server\\share\\x.md", "//server/share/x.md",
	"．．／x.md", "a∕b.md", "a⁄b.md", "a＼b.md", "x．md", "․․/x.md",
	"x\x00.md", "x.md\x00.sh", "x\r.md", "x\n.md", "\x1b[31mx.md", "x\x7f.md",
	"x\u200b.md", "x\u200d.md", "\ufeffx.md", "x\u202edm.sh", "\u202dx.md", "a\u00a0b.md",
	"CON.md", "con .md", "a/con/b.md", "aux.tar.md", "COM¹.md", "com9.md", "LPT9.txt", "nul.txt", "Prn.md", "CONIN$.md",
	"x.md.", "x.md ", "a./x.md", "a /x.md", "-rf.md", " x.md",
	".git/config", ".git/hooks/pre-commit.md", ".hidden.md", ".teammem-tmp-ABC.md", ".bashrc",
	"a//b.md", "a/", "/", "",
	strings.Repeat("a", 509) + ".mdx", strings.Repeat("a", 253) + ".md", strings.Repeat("a/", 16) + "x.md",
	"cafe\u0301.md", "\u212b.md", "x.sh", "x", "x.md.exe", "notes",
	"a:b.md", "x.md:stream", "notes: q3.md", "aux.md", "a%20b.md", "℀.md", ".trash/.x.md", "GIT~1/x.md", ".Git/x.md",
	"*.md", "?.md", "\"x\".md", "<x>.md", "|x.md", "a\tb.md", "a\u200d🔥.md",
	"good.conflict-20260101T000000Z-evil.md",
}

// fakeServer answers a pull with the given entries and accepts pushes; it
// is the hostile server of the test, in this process.
func fakeServer(t *testing.T, entries map[string]string) *httptest.Server {
	var mu sync.Mutex
	sums := map[string]string{}
	for k, v := range entries {
		sums[k] = protocol.EntryChecksum([]byte(v))
	}
	checksum := protocol.DatasetChecksum(sums)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("ETag", `"`+checksum+`"`)
		switch {
		case r.Method == http.MethodPut:
			json.NewEncoder(w).Encode(api.PutResponse{Checksum: checksum, Version: 2})
		case r.URL.Query().Get("view") == "hashes":
			json.NewEncoder(w).Encode(api.Hashes{Version: 1, Checksum: checksum, EntryChecksums: sums})
		default:
			json.NewEncoder(w).Encode(api.TeamMemory{OrganizationID: "evil", Repo: repo, Version: 1, Checksum: checksum,
				Content: api.Content{Entries: entries, EntryChecksums: sums}})
		}
	})
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

func TestHostileServerWritesOnlyValidKeysInsideTheFolder(t *testing.T) {
	root := t.TempDir()
	dir, outside := filepath.Join(root, "team"), filepath.Join(root, "outside")
	for _, d := range []string{dir, outside} {
		os.Mkdir(d, 0o755)
	}
	write(t, outside, "target.md", "outside, must stay as is\n")
	plantSymlinks(t, dir, outside)

	entries := map[string]string{"good.md": "good\n", "sub/ok.md": "ok\n", ".trash/old.md": "old\n", "~/🔥 $x.md": "fire\n",
		"link/evil.md": "through a symlinked folder\n", "link/deeper/evil.md": "deeper\n",
		"linkfile.md": "through a symlinked file\n", "abs/evil.md": "through an absolute symlink\n",
		filepath.Join(root, "abs.md"): "absolute\n"}
	for _, k := range hostileKeys {
		entries[k] = "pwned\n"
	}
	srv := fakeServer(t, entries)
	p := startProc(t, agentBin, "pull", "--server", srv.URL, "--repo", repo, "--dir", dir,
		"--state-dir", filepath.Join(root, "state"), "--json")
	p.wait()

	want := map[string]string{"team/good.md": "good\n", "team/sub/ok.md": "ok\n", "team/.trash/old.md": "old\n", "team/~/🔥 $x.md": "fire\n",
		"outside/target.md": "outside, must stay as is\n"}
	got := files(t, root)
	for k := range got {
		if strings.HasPrefix(k, "state/") {
			delete(got, k)
		}
	}
	if got["team/linkfile.md"] == "through a symlinked file\n" {
		delete(got, "team/linkfile.md") // a valid key, written in place of the link: inside the folder
	}
	if _, err := os.Lstat("/evil.md"); err == nil {
		t.Error("/evil.md was written through the symlink to /")
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
		delete(got, k)
	}
	for k, v := range got {
		t.Errorf("unexpected file %q holding %q", k, v)
	}
	warned := strings.Count(p.stdout.String(), "skipping")
	if warned < 50 {
		t.Errorf("only %d keys reported as skipped; stdout:\n%.2000s", warned, p.stdout)
	}
	if strings.ContainsAny(p.stdout.String()+p.stderr.String(), "\x1b\x00\r") {
		t.Error("a control character from a key reached the output")
	}
}

// plantSymlinks puts links in the team folder that lead outside it.
func plantSymlinks(t *testing.T, dir, outside string) {
	t.Helper()
	for name, target := range map[string]string{
		"link":        outside,
		"linkfile.md": filepath.Join(outside, "target.md"),
		"abs":         "/",
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}
