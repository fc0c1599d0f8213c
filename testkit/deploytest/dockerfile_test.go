package deploytest

import (
	"bytes"
	"strings"
	"testing"
)

func TestDockerfile(t *testing.T) {
	stages, err := ParseDockerfile(bytes.NewReader(read(t, "deploy/Dockerfile")))
	if err != nil {
		t.Fatal(err)
	}
	if len(stages) < 2 {
		t.Fatalf("want a multi-stage build, got %d stage(s)", len(stages))
	}
	build := stages[0]
	if !strings.HasPrefix(build.From, "golang:") {
		t.Errorf("build stage FROM %s, want golang:", build.From)
	}
	all := joined(build)
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", `-s -w -X main.version=`, "./cmd/teammem-server", "./cmd/teammem-agent"} {
		if !strings.Contains(all, want) {
			t.Errorf("build stage lacks %q", want)
		}
	}
	for _, st := range stages[1:] {
		t.Run(st.Name, func(t *testing.T) { checkFinalStage(t, st) })
	}
}

// TestDockerignore: the build context (the repository root) never carries
// a data directory, binaries or keys into an image.
func TestDockerignore(t *testing.T) {
	lines := map[string]bool{}
	for _, l := range strings.Split(string(read(t, ".dockerignore")), "\n") {
		lines[strings.TrimSpace(l)] = true
	}
	for _, want := range []string{".git", ".teammem", "**/.teammem", "bin", "**/*.key", "**/*.pem", "**/admin.token"} {
		if !lines[want] {
			t.Errorf(".dockerignore lacks %s", want)
		}
	}
}

func checkFinalStage(t *testing.T, st Stage) {
	user, ok := st.Last("USER")
	if !ok {
		t.Fatal("no USER: the image would run as root")
	}
	if u, _, _ := strings.Cut(user.Args, ":"); u == "0" || u == "root" {
		t.Errorf("USER %s is root", user.Args)
	}
	entry, _ := st.Last("ENTRYPOINT")
	for _, want := range []string{"teammem-server", `"serve"`, `"0.0.0.0:8080"`, `"--data-dir", "/data"`} {
		if !strings.Contains(entry.Args, want) {
			t.Errorf("ENTRYPOINT %s lacks %s", entry.Args, want)
		}
	}
	if !hasInstruction(st, "EXPOSE", "8080") || !hasInstruction(st, "VOLUME", "/data") {
		t.Error("want EXPOSE 8080 and VOLUME /data")
	}
	if !hasInstruction(st, "ENV", "TEAMMEM_DATA_DIR=/data") {
		t.Error("want ENV TEAMMEM_DATA_DIR=/data (token create in the container finds the key)")
	}
	if !hasInstruction(st, "HEALTHCHECK", `teammem-server", "healthcheck"`) {
		t.Error("want a HEALTHCHECK running teammem-server healthcheck (no shell needed)")
	}
}

func joined(st Stage) string {
	var b strings.Builder
	for _, in := range st.Instructions {
		b.WriteString(in.Cmd + " " + in.Args + "\n")
	}
	return b.String()
}

func hasInstruction(st Stage, cmd, substr string) bool {
	for _, in := range st.Instructions {
		if in.Cmd == cmd && strings.Contains(in.Args, substr) {
			return true
		}
	}
	return false
}

func TestParseDockerfile(t *testing.T) {
	src := "ARG V=1\n# c\nFROM a:1 AS one\nRUN x \\\n  && y\nFROM b\nUSER 1\n"
	stages, err := ParseDockerfile(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(stages) != 2 || stages[0].Name != "one" || stages[1].From != "b" {
		t.Fatalf("stages = %+v", stages)
	}
	if got := stages[0].Instructions[0].Args; got != "x  && y" {
		t.Errorf("continuation joined as %q", got)
	}
	if _, err := ParseDockerfile(strings.NewReader("RUN x\n")); err == nil {
		t.Error("want an error for RUN before FROM")
	}
}
