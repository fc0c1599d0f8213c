package deploytest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestKustomization(t *testing.T) {
	root, err := Root(".")
	if err != nil {
		t.Fatal(err)
	}
	k := documents(t, "deploy/k8s/kustomization.yaml")[0]
	res := strs(k["resources"])
	if len(res) == 0 {
		t.Fatal("kustomization lists no resources")
	}
	for _, r := range res {
		if _, err := os.Stat(filepath.Join(root, "deploy/k8s", r)); err != nil {
			t.Errorf("resource %s: %v", r, err)
		}
	}
	if contains(res, "secret.example.yaml") {
		t.Error("the example Secret must not be applied")
	}
}

func TestDeployment(t *testing.T) {
	d := documents(t, "deploy/k8s/deployment.yaml")[0]
	if d["kind"] != "Deployment" {
		t.Fatalf("kind %v", d["kind"])
	}
	pod := dig(d, "spec", "template", "spec")
	c := dig(pod, "containers", 0)
	checks := []struct {
		name string
		ok   bool
	}{
		{"readiness probe on /readyz", dig(c, "readinessProbe", "httpGet", "path") == "/readyz"},
		{"liveness probe on /healthz", dig(c, "livenessProbe", "httpGet", "path") == "/healthz"},
		{"database URL from the Secret", dig(c, "env", 0, "valueFrom", "secretKeyRef", "key") == "database-url"},
		{"runs as non-root", dig(pod, "securityContext", "runAsNonRoot") == true},
		{"no privilege escalation", dig(c, "securityContext", "allowPrivilegeEscalation") == false},
		{"read-only root", dig(c, "securityContext", "readOnlyRootFilesystem") == true},
		{"migrations in an init container", contains(strs(dig(pod, "initContainers", 0, "command")), "migrate")},
		{"selector matches the pod labels", sameLabels(dig(d, "spec", "selector", "matchLabels"), dig(d, "spec", "template", "metadata", "labels"))},
	}
	for _, ck := range checks {
		if !ck.ok {
			t.Errorf("deployment.yaml: want %s", ck.name)
		}
	}
}

func TestService(t *testing.T) {
	s := documents(t, "deploy/k8s/service.yaml")[0]
	d := documents(t, "deploy/k8s/deployment.yaml")[0]
	if !sameLabels(dig(s, "spec", "selector"), dig(d, "spec", "template", "metadata", "labels")) {
		t.Error("the Service's selector does not select the Deployment's pods")
	}
	if dig(s, "spec", "ports", 0, "targetPort") != "http" {
		t.Error("want the Service to target the named port http")
	}
}

// sameLabels reports whether every label of sel is in labels with the same value.
func sameLabels(sel, labels any) bool {
	s, ok1 := sel.(map[string]any)
	l, ok2 := labels.(map[string]any)
	if !ok1 || !ok2 || len(s) == 0 {
		return false
	}
	for k, v := range s {
		if l[k] != v {
			return false
		}
	}
	return true
}
