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
	exec := u.Get("Service", "ExecStart")
	for _, w := range []string{"teammem-server serve", "--data-dir /var/lib/teammem", "--addr 127.0.0.1:"} {
		if !strings.Contains(exec, w) {
			t.Errorf("ExecStart %q lacks %q", exec, w)
		}
	}
	if u.Get("Install", "WantedBy") != "multi-user.target" {
		t.Error("want WantedBy=multi-user.target")
	}
}
