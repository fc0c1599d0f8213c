package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/internal/atomicfile"
	"github.com/teammem/teammem/testkit/proctest"
)

const (
	testServer = "https://mem.example.com"
	testRepo   = "acme/api"
	testFolder = "/home/u/.claude/projects/api/memory/team"
)

func TestJournalRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	j, err := OpenJournal(dir, testServer, testRepo, testFolder)
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Entries) != 0 || j.Version != 0 {
		t.Fatalf("new journal not empty: %+v", j)
	}
	j.Record("a.md", "hello\n")
	j.Record("notes/b.md", "b")
	j.Record("gone.md", "x")
	j.Forget("gone.md")
	j.SetDataset("sha256:abc", 7)
	if err := j.Save(); err != nil {
		t.Fatal(err)
	}
	got, err := OpenJournal(dir, testServer, testRepo, testFolder)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(j, got, cmp.AllowUnexported(Journal{})); diff != "" {
		t.Errorf("reopened journal (-saved +got):\n%s", diff)
	}
	if c, ok := got.Content("a.md"); !ok || c != "hello\n" {
		t.Errorf("Content(a.md) = %q, %v", c, ok)
	}
	want := map[string]string{"a.md": "sha256:5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03",
		"notes/b.md": "sha256:3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d"}
	if diff := cmp.Diff(want, got.Base()); diff != "" {
		t.Errorf("Base (-want +got):\n%s", diff)
	}
	if fi, err := os.Stat(j.Path()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("journal mode = %v, %v; want 0600", fi.Mode(), err)
	}
}

func TestJournalPathDiffersPerServerRepoAndFolder(t *testing.T) {
	paths := map[string]bool{}
	for _, p := range []string{
		JournalPath("/s", testServer, testRepo, "/elsewhere/team"),
		JournalPath("/s", testServer, testRepo, testFolder),
		JournalPath("/s", testServer, "acme/web", testFolder),
		JournalPath("/s", "https://other.example.com", testRepo, testFolder),
		JournalPath("/s", testServer+"\x00acme", "api", testFolder),
	} {
		if paths[p] {
			t.Errorf("duplicate journal path %s", p)
		}
		paths[p] = true
		if filepath.Dir(p) != "/s" || !strings.HasPrefix(filepath.Base(p), "journal-") {
			t.Errorf("unexpected path %s", p)
		}
	}
}

func TestJournalCorrupt(t *testing.T) {
	good := `{"format":1,"server":"` + testServer + `","repo":"` + testRepo + `","folder":"` + testFolder + `","checksum":"c","version":3,` +
		`"entries":{"a.md":{"checksum":"sha256:ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb","content":"a"}}}`
	tests := []struct{ name, data string }{
		{"truncated", good[:len(good)/2]},
		{"garbage", "\x00\x01not json"},
		{"empty file", ""},
		{"wrong format", strings.Replace(good, `"format":1`, `"format":9`, 1)},
		{"other repo", strings.Replace(good, testRepo, "acme/web", 1)},
		{"other folder", strings.Replace(good, testFolder, "/elsewhere/team", 1)},
		{"tampered content", strings.Replace(good, `"content":"a"`, `"content":"b"`, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := JournalPath(dir, testServer, testRepo, testFolder)
			if err := os.WriteFile(path, []byte(tt.data), 0o600); err != nil {
				t.Fatal(err)
			}
			j, err := OpenJournal(dir, testServer, testRepo, testFolder)
			if !errors.Is(err, ErrCorruptJournal) {
				t.Fatalf("err = %v, want ErrCorruptJournal", err)
			}
			if j == nil || len(j.Entries) != 0 || j.Version != 0 {
				t.Fatalf("corrupt journal not empty: %+v", j)
			}
			// An empty base deletes nothing on either side.
			p := Reconcile(Input{
				Local:  map[string]string{"a.md": "l", "local.md": "1"},
				Server: map[string]string{"a.md": "s", "server.md": "2"},
				Base:   j.Base(),
			})
			for _, a := range []Action{ActionPushDelete, ActionDeleteLocal} {
				if keys := p.Keys(a); len(keys) != 0 {
					t.Errorf("%v on %q after a corrupt journal", a, keys)
				}
			}
			// Saving replaces the corrupt file with a good one.
			j.Record("a.md", "a")
			if err := j.Save(); err != nil {
				t.Fatal(err)
			}
			if _, err := OpenJournal(dir, testServer, testRepo, testFolder); err != nil {
				t.Errorf("reopen after save: %v", err)
			}
		})
	}
}

// TestJournalLeftoverTempFile simulates a crash between writing the
// temporary file and renaming it: the old journal stays authoritative and
// an old leftover is removed, a fresh one (maybe another agent's write in
// progress) is kept.
func TestJournalLeftoverTempFile(t *testing.T) {
	dir := t.TempDir()
	j, _ := OpenJournal(dir, testServer, testRepo, testFolder)
	j.Record("a.md", "old")
	if err := j.Save(); err != nil {
		t.Fatal(err)
	}
	leftover := filepath.Join(dir, atomicfile.TempPrefix+"OLD")
	fresh := filepath.Join(dir, atomicfile.TempPrefix+"FRESH")
	for _, p := range []string{leftover, fresh} {
		if err := os.WriteFile(p, []byte(`{"format":1,"entr`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * staleTempAge)
	if err := os.Chtimes(leftover, old, old); err != nil {
		t.Fatal(err)
	}
	got, err := OpenJournal(dir, testServer, testRepo, testFolder)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := got.Content("a.md"); c != "old" {
		t.Errorf("content = %q, want old", c)
	}
	if _, err := os.Stat(leftover); !os.IsNotExist(err) {
		t.Errorf("leftover temporary file still there: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("fresh temporary file removed: %v", err)
	}
}

// TestJournalKilledWhileSaving kills a process that saves the journal in a
// loop; whatever moment the kill lands, the journal opens cleanly.
func TestJournalKilledWhileSaving(t *testing.T) {
	if dir := os.Getenv("TEAMMEM_JOURNAL_CHILD"); dir != "" {
		saveForever(dir)
		return
	}
	dir := t.TempDir()
	for round := range 3 {
		cmd := proctest.Command(t, os.Args[0], "-test.run=^TestJournalKilledWhileSaving$")
		cmd.Env = append(os.Environ(), "TEAMMEM_JOURNAL_CHILD="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 64)
		for seen := 0; seen < 5+round*20; { // wait for some saves to complete
			n, err := out.Read(buf)
			if err != nil {
				t.Fatalf("child: %v", err)
			}
			seen += strings.Count(string(buf[:n]), "\n")
		}
		cmd.Process.Kill()
		cmd.Wait()
		j, err := OpenJournal(dir, testServer, testRepo, testFolder)
		if err != nil {
			t.Fatalf("round %d: journal after kill: %v", round, err)
		}
		if len(j.Entries) == 0 {
			t.Fatalf("round %d: journal lost its entries", round)
		}
	}
}

// saveForever is the child of TestJournalKilledWhileSaving.
func saveForever(dir string) {
	j, _ := OpenJournal(dir, testServer, testRepo, testFolder)
	for i := 0; ; i++ {
		j.Record(fmt.Sprintf("k%03d.md", i%500), strings.Repeat("x", i))
		j.SetDataset("c", int64(i))
		if err := j.Save(); err != nil {
			os.Exit(3)
		}
		fmt.Println(i)
	}
}

// TestJournalEncodeIsTheFileLayout: the streamed encoding decodes to the
// same value as json.Marshal of the file layout, with and without entries.
func TestJournalEncodeIsTheFileLayout(t *testing.T) {
	tests := []struct {
		name    string
		entries map[string]string
	}{
		{"empty", nil},
		{"entries", map[string]string{"b.md": "<b> & \"quoted\"\n", "a.md": "a\n", "notes/ü.md": "\x01\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &Journal{Server: testServer, Repo: testRepo, Checksum: "sha256:x", Version: 9, Entries: map[string]BaseEntry{}}
			for k, v := range tt.entries {
				j.Record(k, v)
			}
			var got bytes.Buffer
			if err := j.encode(&got); err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(journalFile{Format: journalFormat, Journal: j})
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal(got.Bytes(), &g); err != nil {
				t.Fatalf("encoded journal is not JSON: %v\n%s", err, got.Bytes())
			}
			json.Unmarshal(want, &w)
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("encoded (-json.Marshal +encode):\n%s", diff)
			}
		})
	}
}

// TestJournalChanged: only a real change marks the journal for saving.
func TestJournalChanged(t *testing.T) {
	j, err := OpenJournal(t.TempDir(), testServer, testRepo, testFolder)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		do   func()
		want bool
	}{
		{"record", func() { j.Record("a.md", "a") }, true},
		{"record again", func() { j.Record("a.md", "a") }, false},
		{"adopt", func() { j.adopt("a.md", j.Entries["a.md"].Checksum, "a") }, false},
		{"forget absent", func() { j.Forget("b.md") }, false},
		{"dataset again", func() { j.SetDataset("", 0) }, false},
		{"dataset", func() { j.SetDataset("sha256:x", 1) }, true},
		{"forget", func() { j.Forget("a.md") }, true},
	}
	for _, s := range steps {
		j.changed = false
		s.do()
		if j.changed != s.want {
			t.Errorf("%s: changed = %v, want %v", s.name, j.changed, s.want)
		}
	}
}
