package deploytest

import (
	"bytes"
	"strings"
	"testing"
)

func TestSystemdUnit(t *testing.T) {
	u := ParseUnit(bytes.NewReader(read(t, "deploy/teammem-server.service")))
	want := map[string]string{
		"ProtectSystem":   "strict",
		"ProtectHome":     "yes",
		"NoNewPrivileges": "yes",
		"StateDirectory":  "teammem",
		"PrivateTmp":      "yes",
		"KillSignal":      "SIGTERM",
	}
	for k, v := range want {
		if got := u.Get("Service", k); got != v {
			t.Errorf("[Service] %s=%q, want %q", k, got, v)
		}
	}
	if u.Get("Service", "DynamicUser") != "yes" && u.Get("Service", "User") == "" {
		t.Error("want DynamicUser=yes or a User=")
	}
	if u.Get("Service", "CapabilityBoundingSet") != "" {
		t.Error("want an empty CapabilityBoundingSet")
	}
	// Settings come from the environment file, which overrides the
	// Environment= defaults; a flag on ExecStart would win over both and
	// make the file's setting dead (the unit's comment promises the file).
	if exec := u.Get("Service", "ExecStart"); exec != "/usr/local/bin/teammem-server serve" {
		t.Errorf("ExecStart %q; want the bare serve command, settings in the environment", exec)
	}
	env := strings.Join(u["Service"]["Environment"], " ")
	for _, w := range []string{"TEAMMEM_DATA_DIR=/var/lib/teammem", "TEAMMEM_ADDR=127.0.0.1:"} {
		if !strings.Contains(env, w) {
			t.Errorf("Environment %q lacks %q", env, w)
		}
	}
	if f := u.Get("Service", "EnvironmentFile"); f != "-/etc/teammem/teammem.env" {
		t.Errorf("EnvironmentFile=%q; want -/etc/teammem/teammem.env", f)
	}
	if u.Get("Install", "WantedBy") != "multi-user.target" {
		t.Error("want WantedBy=multi-user.target")
	}
}
