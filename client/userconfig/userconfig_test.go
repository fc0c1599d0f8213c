package userconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestConfigPath(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	tests := []struct {
		name, goos, home string
		getenv           func(string) string
		want             string
	}{
		{"linux", "linux", "/home/u", env(), "/home/u/.config/teammem/agent.toml"},
		{"xdg", "linux", "/home/u", env("XDG_CONFIG_HOME", "/x"), "/x/teammem/agent.toml"},
		{"relative xdg ignored", "linux", "/home/u", env("XDG_CONFIG_HOME", "rel"), "/home/u/.config/teammem/agent.toml"},
		{"darwin", "darwin", "/Users/u", env(), "/Users/u/Library/Application Support/teammem/agent.toml"},
		{"windows", "windows", `C:\Users\u`, env("APPDATA", `C:\Users\u\AppData\Roaming`), filepath.Join(`C:\Users\u\AppData\Roaming`, "teammem", "agent.toml")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := Path(tt.getenv, tt.home, tt.goos); err != nil || got != tt.want {
				t.Errorf("ConfigPath = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := Path(env(), "", "linux"); err != ErrNoConfigDir {
		t.Errorf("no home: %v", err)
	}
}

func TestUserConfigRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "agent.toml")
	empty, err := Load(path)
	if err != nil || len(empty.Checkouts) != 0 {
		t.Fatalf("missing file = %+v, %v; want the empty configuration", empty, err)
	}
	c := Config{Server: "https://m.example.com", Token: `tok"en`}
	if !c.Add(Checkout{Path: "/src/a"}) || !c.Add(Checkout{Path: "/src/b", Repo: "acme/b"}) || c.Add(Checkout{Path: "/src/a"}) {
		t.Fatal("Add reported the wrong change")
	}
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("saved file: %v, %v; want mode 0600", fi, err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, got); diff != "" {
		t.Errorf("round trip (-saved +loaded):\n%s", diff)
	}
	if !got.Remove("/src/a") || got.Remove("/src/a") || len(got.Checkouts) != 1 {
		t.Errorf("Remove: %+v", got.Checkouts)
	}
	os.WriteFile(path, []byte("server = \"x\"\nsevrer = \"typo\"\n"), 0o600)
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "sevrer") {
		t.Errorf("a misspelt setting: %v; want an error naming it", err)
	}
	os.WriteFile(path, []byte("server = \n"), 0o600)
	if _, err := Load(path); err == nil {
		t.Error("a broken file loaded")
	}
}

// TestPersonal: a checkout's own personal setting wins over the
// configuration's; both survive a round trip, and re-adding a checkout
// with another setting changes it.
func TestPersonal(t *testing.T) {
	on, off := true, false
	c := Config{Personal: true, Checkouts: []Checkout{{Path: "/a"}, {Path: "/b", Personal: &off}, {Path: "/c", Personal: &on}}}
	for i, want := range []bool{true, false, true} {
		if got := c.PersonalFor(c.Checkouts[i]); got != want {
			t.Errorf("PersonalFor(%s) = %v, want %v", c.Checkouts[i].Path, got, want)
		}
	}
	if c.PersonalFor(Checkout{Path: "/d", Personal: &off}) || (Config{}).PersonalFor(Checkout{Path: "/a"}) {
		t.Error("personal without being asked for")
	}
	path := filepath.Join(t.TempDir(), "agent.toml")
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if back.Add(Checkout{Path: "/b", Personal: &off}) {
		t.Error("re-adding the same registration changed it")
	}
	if !back.Add(Checkout{Path: "/b", Personal: &on}) || !back.PersonalFor(back.Checkouts[1]) {
		t.Error("re-adding with --personal did not turn it on")
	}
}
