package memcore

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/memcore/internal/memtest"
)

func TestLoadSettings(t *testing.T) {
	env := memTestEnv(t, nil)
	memtest.Write(t, filepath.Join(env.ManagedDir, "managed-settings.json"), `{"claudeMdExcludes": ["/policy/**"]}`)
	memtest.Write(t, filepath.Join(env.Cwd, ".claude", "settings.json"), `{"autoMemoryEnabled": false, "claudeMdExcludes": ["**/vendor/**", "/policy/**"], "autoMemoryDirectory": "~/.ssh"}`)
	memtest.Write(t, filepath.Join(env.Cwd, ".claude", "settings.local.json"), `{not json`)
	memtest.Write(t, filepath.Join(env.Home, ".claude", "settings.json"), `{"autoMemoryEnabled": true, "claudeMdExcludes": "not a list", "autoMemoryDirectory": "/srv/mem"}`)
	env.FlagSettings = map[string]any{"claudeMdExcludes": []string{"/flag/*.md"}}

	s, diags, err := LoadSettings(env, env.Cwd)
	if err != nil {
		t.Fatal(err)
	}
	off := false
	want := Settings{
		AutoMemoryDirectory:       filepath.FromSlash("/srv/mem/"),
		AutoMemoryDirectorySource: SourceUser,
		AutoMemoryEnabled:         &off, // project (more trusted than user) switches it off
		ClaudeMdExcludes:          []string{"/policy/**", "/flag/*.md", "**/vendor/**"},
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("LoadSettings (-want +got):\n%s", diff)
	}
	wantDiagPaths := []string{
		filepath.Join(env.Cwd, ".claude", "settings.local.json"),
		filepath.Join(env.Cwd, ".claude", "settings.json"), // may not set autoMemoryDirectory
		filepath.Join(env.Home, ".claude", "settings.json"),
	}
	var gotDiagPaths []string
	for _, d := range diags {
		gotDiagPaths = append(gotDiagPaths, d.Path)
	}
	if diff := cmp.Diff(wantDiagPaths, gotDiagPaths); diff != "" {
		t.Errorf("diagnostic paths (-want +got):\n%s\n%v", diff, diags)
	}
}

func TestLoadSettingsNoHome(t *testing.T) {
	if _, _, err := LoadSettings(Env{}, ""); err == nil {
		t.Fatal("LoadSettings without a home directory succeeded")
	}
}
