package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestConfigInjectFalseTurnsNoInjectOn(t *testing.T) {
	for _, tt := range []struct {
		file string
		want bool
	}{
		{"", false},
		{"inject = true\n", false},
		{"inject = false\n", true},
	} {
		path := filepath.Join(t.TempDir(), "agent.toml")
		if tt.file != "" {
			os.WriteFile(path, []byte(tt.file), 0o600)
		}
		c := commonFlags{config: path}
		if _, err := c.applyConfig(&cliEnv{Getenv: func(string) string { return "" }}); err != nil {
			t.Fatal(err)
		}
		if c.noInject != tt.want {
			t.Errorf("config %q: noInject %v, want %v", tt.file, c.noInject, tt.want)
		}
	}
}
