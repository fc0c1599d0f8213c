package main

import (
	"bytes"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client/agent"
)

// TestReportSkips: the engine's skips reach --json as they are, whatever
// the path holds, and text output quotes the path.
func TestReportSkips(t *testing.T) {
	tests := []struct {
		name string
		skip agent.Skip
		text string
	}{
		{"plain", agent.Skip{Path: "a.md", Reason: "not valid UTF-8"},
			"skipping \"a.md\": not valid UTF-8\n"},
		{"path with quote, colon and newline", agent.Skip{Path: "we\"ird: \n.md", Reason: "the server refused it: too large: 3 bytes"},
			"skipping \"we\\\"ird: \\n.md\": the server refused it: too large: 3 bytes\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := agent.Report{Skipped: []agent.Skip{tt.skip}}
			got := toJSON("sync", "acme/api", r, nil).Skipped
			if diff := cmp.Diff([]agent.Skip{{Path: tt.skip.Path, Reason: tt.skip.Reason}}, got); diff != "" {
				t.Errorf("json skipped (-want +got):\n%s", diff)
			}
			var b bytes.Buffer
			printText(&b, "acme/api", r)
			if b.String() != tt.text {
				t.Errorf("text = %q, want %q", b.String(), tt.text)
			}
		})
	}
}

// TestRepeatKeyTellsSkipsApart: run suppresses a report only when it says
// exactly what the previous one said.
func TestRepeatKeyTellsSkipsApart(t *testing.T) {
	a := agent.Report{Skipped: []agent.Skip{{Path: "a.md", Reason: "x"}}}
	b := agent.Report{Skipped: []agent.Skip{{Path: "b.md", Reason: "x"}}}
	if repeatKey(a, nil) == repeatKey(b, nil) {
		t.Error("different skips give the same key")
	}
	if repeatKey(a, nil) != repeatKey(agent.Report{Skipped: []agent.Skip{{Path: "a.md", Reason: "x"}}}, nil) {
		t.Error("equal skips give different keys")
	}
}

// TestJSONKeysAreCamelCase holds every --json shape of the agent to one
// key style (docs/cli.md): lowerCamelCase, no underscores or dashes.
func TestJSONKeysAreCamelCase(t *testing.T) {
	camel := regexp.MustCompile(`^[a-z][a-zA-Z0-9]*$`)
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type, string)
	walk = func(ty reflect.Type, at string) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		for f := range ty.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if f.Anonymous && name == "" { // an embedded struct's keys are the outer object's
				walk(f.Type, at+"."+f.Name)
				continue
			}
			if !camel.MatchString(name) {
				t.Errorf("%s.%s: JSON key %q is not camelCase", at, f.Name, name)
			}
			walk(f.Type, at+"."+f.Name)
		}
	}
	for _, v := range []any{reportJSON{}, agent.Status{}, api.Activity{}, diffJSON{}, restoreJSON{}, api.History{},
		api.RevisionContent{}, fileJSON{}} {
		walk(reflect.TypeOf(v), reflect.TypeOf(v).Name())
	}
}
