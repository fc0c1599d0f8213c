package autostart

import (
	"encoding/xml"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func env(kv ...string) func(string) string {
	return func(k string) string {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1]
			}
		}
		return ""
	}
}

// fakeControl records the service manager commands.
type fakeControl struct{ calls []string }

func (f *fakeControl) run(name string, args ...string) ([]byte, error) {
	f.calls = append(f.calls, name+" "+strings.Join(args, " "))
	return []byte("active\n"), nil
}

func TestSystemdUnit(t *testing.T) {
	home := t.TempDir()
	agent, err := os.Executable() // a program that exists, for systemd-analyze
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(home, "odd dir", `50% "quoted" $HOME\x`, "agent.toml")
	s, err := New("linux", env("XDG_CONFIG_HOME", filepath.Join(home, "cfg")), home, agent, config)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, "cfg", "systemd", "user", "teammem-agent.service"); s.Path != want {
		t.Errorf("path = %s; want %s", s.Path, want)
	}
	f := &fakeControl{}
	s.Control = f.run
	if err := s.Install(true); err != nil {
		t.Fatal(err)
	}
	unit, err := os.ReadFile(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	wantExec := `ExecStart="` + agent + `" "run" "--config" "` + filepath.Join(home, "odd dir") + `/50%% \"quoted\" $$HOME\\x/agent.toml"`
	if !strings.Contains(string(unit), wantExec+"\n") {
		t.Errorf("unit:\n%s\nwant the line %s", unit, wantExec)
	}
	if got := strings.Join(f.calls, "; "); got != "systemctl --user daemon-reload; systemctl --user enable --now teammem-agent.service" {
		t.Errorf("install ran %q", got)
	}
	if analyze, err := exec.LookPath("systemd-analyze"); err == nil {
		out, err := exec.Command(analyze, "verify", s.Path).CombinedOutput()
		if err != nil || len(strings.TrimSpace(string(out))) > 0 {
			t.Errorf("systemd-analyze verify: %v\n%s", err, out)
		}
	}
	if installed, state := s.State(true); !installed || state != "active" {
		t.Errorf("State = %v, %q", installed, state)
	}
	f.calls = nil
	if err := s.Uninstall(true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Path); !os.IsNotExist(err) {
		t.Errorf("unit still there: %v", err)
	}
	if got := strings.Join(f.calls, "; "); got != "systemctl --user disable --now teammem-agent.service; systemctl --user daemon-reload" {
		t.Errorf("uninstall ran %q", got)
	}
	if installed, state := s.State(true); installed || state != "not installed" {
		t.Errorf("State after uninstall = %v, %q", installed, state)
	}
	if err := s.Uninstall(false); err != nil {
		t.Errorf("uninstalling twice: %v", err)
	}
}

func TestLaunchdAgent(t *testing.T) {
	home := t.TempDir()
	s, err := New("darwin", env(), home, "/Applications/team mem/teammem-agent", "/Users/u/<cfg>&/agent.toml")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeControl{}
	s.Control = f.run
	if err := s.Install(true); err != nil {
		t.Fatal(err)
	}
	if s.Path != filepath.Join(home, "Library", "LaunchAgents", "dev.teammem.agent.plist") {
		t.Errorf("path = %s", s.Path)
	}
	b, err := os.ReadFile(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Dict struct {
			Keys   []string `xml:"key"`
			Args   []string `xml:"array>string"`
			Labels []string `xml:"string"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("the property list is not XML: %v\n%s", err, b)
	}
	if strings.Join(doc.Dict.Args, "|") != "/Applications/team mem/teammem-agent|run|--config|/Users/u/<cfg>&/agent.toml" ||
		doc.Dict.Labels[0] != "dev.teammem.agent" {
		t.Errorf("plist = %+v", doc)
	}
	if len(f.calls) != 2 || !strings.HasPrefix(f.calls[1], "launchctl bootstrap gui/") {
		t.Errorf("install ran %q", f.calls)
	}
}

func TestUnsupported(t *testing.T) {
	_, err := New("windows", env(), `C:\Users\u`, `C:\teammem-agent.exe`, `C:\agent.toml`)
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "windows") {
		t.Errorf("New(windows) = %v; want ErrUnsupported naming the system", err)
	}
}
