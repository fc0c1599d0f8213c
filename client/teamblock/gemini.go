package teamblock

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/client/gitremote"
)

// geminiSettingsText is the workspace settings file the agent writes when
// a tracked GEMINI.md sends the block to the side file: context.fileName
// names GEMINI.md and the side file, so that Gemini CLI reads both.
func geminiSettingsText(t assistants.Assistant) string {
	return "{\n  \"context\": {\n    \"fileName\": [\"" + t.File + "\", \"" + t.Side + "\"]\n  }\n}\n"
}

// ensureGeminiSettings makes Gemini CLI read the side file of f: nothing
// to do when a settings file already names it; else the agent writes the
// workspace settings file, when there is none and the user's own settings
// (~/.gemini/settings.json) set no context.fileName that the workspace
// one would replace. Any other settings file is the user's: ErrSettings.
func ensureGeminiSettings(f *file) error {
	err := geminiSettingsNames(f)
	if err == nil || !errors.Is(err, errNoSettings) {
		return err
	}
	p := filepath.Join(f.co.Root, filepath.FromSlash(f.t.SideSettings))
	if err := realFolders(f.co.Root, f.t.SideSettings); err != nil {
		return err
	}
	if err := excludeFromGit(f.co, f.t.SideSettings); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	f2, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	_, err = f2.WriteString(geminiSettingsText(f.t))
	if cerr := f2.Close(); err == nil {
		err = cerr
	}
	return err
}

// errNoSettings: neither the workspace nor the user's settings say which
// context files Gemini CLI reads, so the agent may write the workspace's.
var errNoSettings = errors.New("no context.fileName anywhere")

// geminiSettingsNames reports whether Gemini CLI reads f's side file: nil
// when the workspace settings name it, or the user's do and the
// workspace has none; errNoSettings when neither exists or sets
// context.fileName (the workspace one may be written); an error wrapping
// ErrSettings naming the file the user must change otherwise.
func geminiSettingsNames(f *file) error {
	ws := filepath.Join(f.co.Root, filepath.FromSlash(f.t.SideSettings))
	names, set, err := contextFileNames(ws)
	if err != nil || set {
		return namesSide(ws, names, f.t, err)
	}
	home, _ := os.UserHomeDir()
	if home != "" {
		user := f.t.UserSettings(assistants.Env{Home: home})
		if names, set, err := contextFileNames(user); err != nil || set {
			return namesSide(user, names, f.t, err)
		}
	}
	if _, err := os.Lstat(ws); err == nil {
		return fmt.Errorf("%s %w", ws, ErrSettings) // the user's file: theirs to change
	}
	return errNoSettings
}

// namesSide is geminiSettingsNames's answer for the settings file p.
func namesSide(p string, names []string, t assistants.Assistant, err error) error {
	if err == nil && slices.Contains(names, t.Side) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s cannot be read (%v), so it %w", p, err, ErrSettings)
	}
	return fmt.Errorf("%s %w", p, ErrSettings)
}

// contextFileNames reads context.fileName from a Gemini CLI settings file
// (a string or a list of strings); set is false when the file is missing
// or does not set it.
func contextFileNames(p string) (names []string, set bool, err error) {
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var s struct {
		Context struct {
			FileName json.RawMessage `json:"fileName"`
		} `json:"context"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, false, fmt.Errorf("not plain JSON: %w", err)
	}
	raw := s.Context.FileName
	if len(raw) == 0 || string(raw) == "null" {
		return nil, false, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, true, nil
	}
	if err := json.Unmarshal(raw, &names); err != nil {
		return nil, true, fmt.Errorf("context.fileName: %w", err)
	}
	return names, true, nil
}

// isOurGeminiSettings reports whether the checkout's workspace settings
// file is the one the agent writes.
func isOurGeminiSettings(checkout string) bool {
	data, err := os.ReadFile(filepath.Join(checkout, filepath.FromSlash(assistants.Gemini.SideSettings)))
	return err == nil && string(data) == geminiSettingsText(assistants.Gemini)
}

// removeGeminiSettings deletes the workspace settings file the agent
// wrote (and .gemini when that leaves it empty); a file of anyone else's
// stays.
func removeGeminiSettings(co gitremote.Checkout) (bool, error) {
	if tracked, err := co.Tracked(assistants.Gemini.SideSettings); err != nil || tracked || !isOurGeminiSettings(co.Root) {
		return false, err
	}
	p := filepath.Join(co.Root, filepath.FromSlash(assistants.Gemini.SideSettings))
	return true, removeIfUnchanged(co.Root, p, geminiSettingsText(assistants.Gemini))
}
