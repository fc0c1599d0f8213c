package deploytest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestDist runs scripts/dist.sh (what `make dist` runs) for the host's
// target only and checks its promises: one archive holding both binaries,
// the version linked in, a SHA256SUMS line that matches, and on Linux a
// static executable (no program interpreter).
func TestDist(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both binaries")
	}
	root, err := Root(".")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	target := runtime.GOOS + "/" + runtime.GOARCH
	const version = "v0.0.0-disttest"
	cmd := exec.Command(filepath.Join(root, "scripts", "dist.sh"))
	cmd.Env = append(os.Environ(), "VERSION="+version, "DIST_DIR="+out, "DIST_TARGETS="+target)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("dist.sh: %v\n%s", err, b)
	}
	name := "teammem-" + version + "-" + runtime.GOOS + "-" + runtime.GOARCH
	archive := name + ".tar.gz"
	if runtime.GOOS == "windows" {
		t.Skip("the test unpacks with tar")
	}
	sums := readSums(t, filepath.Join(out, "SHA256SUMS"))
	data, err := os.ReadFile(filepath.Join(out, archive))
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(data); sums[archive] != hex.EncodeToString(sum[:]) || len(sums) != 1 {
		t.Errorf("SHA256SUMS = %v; want one line for %s with its checksum", sums, archive)
	}
	unpacked := t.TempDir()
	if b, err := exec.Command("tar", "-C", unpacked, "-xzf", filepath.Join(out, archive)).CombinedOutput(); err != nil {
		t.Fatalf("unpack: %v\n%s", err, b)
	}
	for _, bin := range []string{"teammem-agent", "teammem-server"} {
		path := filepath.Join(unpacked, name, bin)
		got, err := exec.Command(path, "version").Output()
		if err != nil || strings.TrimSpace(string(got)) != bin+" "+version {
			t.Errorf("%s version = %q, %v; want %q", bin, got, err, bin+" "+version)
		}
		if runtime.GOOS == "linux" {
			f, err := elf.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range f.Progs {
				if p.Type == elf.PT_INTERP {
					t.Errorf("%s is dynamically linked", bin)
				}
			}
			f.Close()
		}
	}
	if runtime.GOOS == "linux" {
		unit, err := os.ReadFile(filepath.Join(unpacked, name, "deploy", "teammem-agent.service"))
		if err != nil || !strings.Contains(string(unit), `ExecStart="/usr/local/bin/teammem-agent" "run" "--config"`) || !strings.Contains(string(unit), "[Install]") {
			t.Errorf("archive's agent user unit: %v\n%s", err, unit)
		}
	}
	for _, f := range []string{"README.md", "LICENSE", "deploy/teammem-server.service"} {
		got, err := os.ReadFile(filepath.Join(unpacked, name, f))
		want, _ := os.ReadFile(filepath.Join(root, f))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("archive's %s differs from the checkout's (%v)", f, err)
		}
	}
}

// readSums parses a SHA256SUMS file into file name → hex checksum.
func readSums(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		sum, file, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q is not 'SUM  FILE'", sc.Text())
		}
		sums[file] = sum
	}
	return sums
}
