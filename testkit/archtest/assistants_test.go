package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/teammem/teammem/client/assistants"
)

// notAnAssistant are the strings outside client/assistants that spell an
// assistant's name for another reason, by file.
var notAnAssistant = map[string][]string{
	"client/search.go": {"cursor"}, // the REST API's page cursor
}

// TestOneTableOfAssistants checks that one package holds the table of
// assistants: outside client/assistants no Go file of client/ or cmd/
// (tests aside) holds a string that is an assistant's name, or that names
// two or more of them (a second table, a list in a help text that goes
// stale when an assistant is added). Prose that mentions one assistant
// ("no Claude Code version reads the team folder") is not a table.
func TestOneTableOfAssistants(t *testing.T) {
	names := assistants.Names(assistants.All)
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{.Dir}} {{join .GoFiles " "}} {{join .IgnoredGoFiles " "}}`,
		module+"/client/...", module+"/cmd/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, dir := strings.TrimPrefix(fields[0], module+"/"), fields[1]
		if pkg == "client/assistants" {
			continue
		}
		for _, name := range fields[2:] {
			for _, s := range namingStrings(t, filepath.Join(dir, name), names) {
				if !slices.Contains(notAnAssistant[pkg+"/"+name], s) {
					t.Errorf("%s/%s names assistants in %q: take them from client/assistants", pkg, name, s)
				}
			}
		}
	}
}

// namingStrings returns the string literals of the Go file at path that
// are one of names, in any case, or hold two or more of them as words.
func namingStrings(t *testing.T, path string, names []string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) })
		named := 0
		for _, n := range names {
			if slices.Contains(words, n) {
				named++
			}
		}
		if named >= 2 || slices.Contains(names, strings.ToLower(s)) {
			found = append(found, s)
		}
		return true
	})
	return found
}
