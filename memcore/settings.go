package memcore

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// SettingsSource names where a setting came from, in ascending trust order of
// the original: user < project < local < flag < policy.
type SettingsSource string

// The settings sources memcore reads.
const (
	SourceUser    SettingsSource = "user"    // <configDir>/settings.json
	SourceProject SettingsSource = "project" // <project>/.claude/settings.json (checked in)
	SourceLocal   SettingsSource = "local"   // <project>/.claude/settings.local.json
	SourceFlag    SettingsSource = "flag"    // Env.FlagSettings
	SourcePolicy  SettingsSource = "policy"  // <managed>/managed-settings.json
)

// Setting keys memcore reads.
const (
	keyAutoMemoryDirectory = "autoMemoryDirectory"
	keyAutoMemoryEnabled   = "autoMemoryEnabled"
	keyClaudeMdExcludes    = "claudeMdExcludes"
)

// Settings is the part of the layered settings that memcore uses.
type Settings struct {
	// AutoMemoryDirectory is the validated autoMemoryDirectory (see
	// ValidateMemoryPath) of the first of policy, flag, local and user
	// settings that sets the key; "" when none does or its value is invalid.
	// Project settings are never consulted: a repository must not be able to
	// point memory writes at, say, ~/.ssh.
	AutoMemoryDirectory string
	// AutoMemoryDirectorySource is the source AutoMemoryDirectory came from.
	AutoMemoryDirectorySource SettingsSource
	// AutoMemoryEnabled is autoMemoryEnabled from the most trusted source
	// that sets it (project settings included: they can only switch memory
	// off or back on); nil when no source sets it.
	AutoMemoryEnabled *bool
	// ClaudeMdExcludes is the union of every source's claudeMdExcludes, most
	// trusted source first, without duplicates.
	ClaudeMdExcludes []string
}

// settingsLayer is one parsed settings source.
type settingsLayer struct {
	source SettingsSource
	path   string
	values map[string]json.RawMessage
}

// LoadSettings reads the settings sources for a project. A missing file is
// no source; an unreadable or malformed file, or a value of the wrong type,
// is reported as a Diagnostic and otherwise ignored. The error result is
// reserved for an unusable Env (no home directory).
func LoadSettings(env Env, projectRoot string) (Settings, []Diagnostic, error) {
	if env.Home == "" {
		return Settings{}, nil, errors.New("load settings: no home directory")
	}
	layers, diags := readSettingsLayers(env, projectRoot)
	var s Settings
	diags = append(diags, s.applyMemoryDirectory(env, layers)...)
	diags = append(diags, s.applyEnabled(layers)...)
	diags = append(diags, s.applyExcludes(layers)...)
	return s, diags, nil
}

// readSettingsLayers returns the sources most trusted first.
func readSettingsLayers(env Env, projectRoot string) ([]settingsLayer, []Diagnostic) {
	files := []struct {
		source SettingsSource
		path   string
	}{
		{SourcePolicy, filepath.Join(env.managedDir(), "managed-settings.json")},
		{SourceFlag, ""},
		{SourceLocal, filepath.Join(projectRoot, ConfigDirName, "settings.local.json")},
		{SourceProject, filepath.Join(projectRoot, ConfigDirName, "settings.json")},
		{SourceUser, filepath.Join(MemoryBase(env), "settings.json")},
	}
	var layers []settingsLayer
	var diags []Diagnostic
	for _, f := range files {
		if f.source == SourceFlag {
			layers = append(layers, flagLayer(env.FlagSettings))
			continue
		}
		if projectRoot == "" && (f.source == SourceLocal || f.source == SourceProject) {
			continue
		}
		values, err := readSettingsFile(f.path)
		if err != nil {
			diags = append(diags, Diagnostic{Path: f.path, Message: err.Error()})
		}
		layers = append(layers, settingsLayer{source: f.source, path: f.path, values: values})
	}
	return layers, diags
}

// readSettingsFile parses one JSON settings file; a missing file yields nil.
func readSettingsFile(path string) (map[string]json.RawMessage, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read settings: %w", err)
	}
	var values map[string]json.RawMessage
	if err := json.Unmarshal(data, &values); err != nil {
		return nil, fmt.Errorf("parse settings: %w", err)
	}
	return values, nil
}

// flagLayer turns command-line settings into a layer.
func flagLayer(flags map[string]any) settingsLayer {
	l := settingsLayer{source: SourceFlag, path: "(flag settings)"}
	for k, v := range flags {
		raw, err := json.Marshal(v)
		if err != nil {
			continue
		}
		if l.values == nil {
			l.values = map[string]json.RawMessage{}
		}
		l.values[k] = raw
	}
	return l
}

// lookup decodes key from the layer into dst; found is false when the key is
// absent or null.
func (l settingsLayer) lookup(key string, dst any) (found bool, diag *Diagnostic) {
	raw, ok := l.values[key]
	if !ok || string(raw) == "null" {
		return false, nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return true, &Diagnostic{Path: l.path, Message: fmt.Sprintf("setting %s: %v", key, err)}
	}
	return true, nil
}

// applyMemoryDirectory takes autoMemoryDirectory from the first trusted
// source that sets it. An invalid value disables the setting rather than
// falling through to a less trusted source. A project settings file that
// tries to set it gets a diagnostic.
func (s *Settings) applyMemoryDirectory(env Env, layers []settingsLayer) []Diagnostic {
	var diags []Diagnostic
	for _, l := range layers {
		if _, ok := l.values[keyAutoMemoryDirectory]; ok && l.source == SourceProject {
			diags = append(diags, Diagnostic{Path: l.path, Message: "setting autoMemoryDirectory ignored: project settings may not move the memory folder"})
		}
	}
	for _, l := range layers {
		if l.source == SourceProject {
			continue
		}
		var dir string
		found, diag := l.lookup(keyAutoMemoryDirectory, &dir)
		if !found {
			continue
		}
		if diag != nil {
			return append(diags, *diag)
		}
		valid, err := ValidateMemoryPath(dir, env.Home)
		if err != nil {
			return append(diags, Diagnostic{Path: l.path, Message: fmt.Sprintf("setting %s ignored: %v", keyAutoMemoryDirectory, err)})
		}
		s.AutoMemoryDirectory, s.AutoMemoryDirectorySource = valid, l.source
		return diags
	}
	return diags
}

// applyEnabled takes autoMemoryEnabled from the most trusted source.
func (s *Settings) applyEnabled(layers []settingsLayer) []Diagnostic {
	var diags []Diagnostic
	for _, l := range layers {
		var on bool
		found, diag := l.lookup(keyAutoMemoryEnabled, &on)
		if diag != nil {
			diags = append(diags, *diag)
			continue
		}
		if found {
			s.AutoMemoryEnabled = &on
			return diags
		}
	}
	return diags
}

// applyExcludes unions claudeMdExcludes over all sources.
func (s *Settings) applyExcludes(layers []settingsLayer) []Diagnostic {
	var diags []Diagnostic
	seen := map[string]bool{}
	for _, l := range layers {
		var patterns []string
		_, diag := l.lookup(keyClaudeMdExcludes, &patterns)
		if diag != nil {
			diags = append(diags, *diag)
			continue
		}
		for _, p := range patterns {
			if p != "" && !seen[p] {
				seen[p] = true
				s.ClaudeMdExcludes = append(s.ClaudeMdExcludes, p)
			}
		}
	}
	return diags
}

// AutoMemoryEnabled reports whether auto memory (and with it team memory) is
// on: CLAUDE_CODE_DISABLE_AUTO_MEMORY truthy switches it off and explicitly
// falsy ("0", "false", "no", "off") switches it on whatever the settings say;
// otherwise the autoMemoryEnabled setting decides, and the default is on.
func AutoMemoryEnabled(env Env, s Settings) bool {
	v := env.getenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY")
	switch {
	case truthy(v):
		return false
	case falsy(v):
		return true
	case s.AutoMemoryEnabled != nil:
		return *s.AutoMemoryEnabled
	}
	return true
}
