package doctest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/cli/*.md from the commands' --help")

// commandLine matches an entry of a "Commands:" list: two spaces, the
// command's words, two or more spaces, its summary.
var commandLine = regexp.MustCompile(`^  ([a-z][a-z-]*(?: [a-z][a-z-]*)*)(?:\s{2,}|$)`)

// commandsOf reads the command names listed under a "Commands:" heading of
// help output (up to the next blank line).
func commandsOf(help string) []string {
	var names []string
	in := false
	for _, line := range strings.Split(help, "\n") {
		switch {
		case strings.HasSuffix(strings.TrimSpace(line), "Commands:"):
			in = true
		case in && strings.TrimSpace(line) == "":
			in = false
		case in:
			if m := commandLine.FindStringSubmatch(line); m != nil {
				names = append(names, m[1])
			}
		}
	}
	return names
}

// helpOf runs bin with args and --help and returns what it printed on
// stdout and stderr (help goes to either, with exit 0 or 2).
func helpOf(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append(args, "--help")...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("%s %v --help: %v", bin, args, err)
		}
	}
	return strings.TrimRight(out.String(), "\n") + "\n"
}

// reference renders the CLI reference of one binary: its help, then each
// listed command's help, in the order the binary lists them.
func reference(t *testing.T, bin, name string, helps map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	fmt.Fprintf(&b, "# `%s` command reference\n\n", name)
	fmt.Fprintf(&b, "Generated from `%s --help` and each command's `--help` by\n", name)
	b.WriteString("`go test ./testkit/doctest -run CLIReference -update`; `make test` fails when this page\n")
	b.WriteString("and the real commands differ.\n")
	top := helpOf(t, bin)
	section := func(title, help string) {
		helps[title] = help
		fmt.Fprintf(&b, "\n## `%s`\n\n```text\n%s```\n", title, help)
	}
	section(name, top)
	cmds := commandsOf(top)
	if len(cmds) == 0 {
		t.Fatalf("%s --help lists no commands:\n%s", name, top)
	}
	for _, c := range cmds {
		help := helpOf(t, bin, strings.Fields(c)...)
		section(name+" "+c, help)
		for _, sub := range commandsOf(help) { // a command's own commands, such as `mcp install`
			section(name+" "+c+" "+sub, helpOf(t, bin, append(strings.Fields(c), sub)...))
		}
	}
	return b.Bytes()
}

// TestCLIReference keeps docs/cli/<binary>.md equal to the real binaries'
// help output.
func TestCLIReference(t *testing.T) {
	bins := t.TempDir()
	helps := map[string]string{}
	defer func() {
		if !t.Failed() {
			checkDocCommands(t, helps)
		}
	}()
	for _, name := range []string{"teammem-server", "teammem-agent"} {
		build := exec.Command("go", "build", "-o", filepath.Join(bins, name), "./cmd/"+name)
		build.Dir = repoRoot
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", name, err, out)
		}
		got := reference(t, filepath.Join(bins, name), name, helps)
		file := filepath.Join(repoRoot, "docs", "cli", name+".md")
		if *update {
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v (run go test ./testkit/doctest -run CLIReference -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("docs/cli/%s.md differs from the real --help output; run\n"+
				"  go test ./testkit/doctest -run CLIReference -update\nand review the diff:\n%s", name, firstDiff(want, got))
		}
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  page: %q\n  help: %q", i+1, x, y)
		}
	}
	return ""
}

func TestCommandsOf(t *testing.T) {
	help := "Usage: x [command]\n\nCommands:\n  serve         run it\n  token create  print a token\n  version\n\nRun 'x <command> --help'.\n  notacommand  after the list\n"
	got := strings.Join(commandsOf(help), ",")
	if got != "serve,token create,version" {
		t.Errorf("commandsOf = %q", got)
	}
}
