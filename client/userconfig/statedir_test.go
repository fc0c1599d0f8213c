package userconfig

import "testing"

func TestStateDir(t *testing.T) {
	tests := []struct {
		name, xdg, local, home, goos string
		want                         string
		wantErr                      bool
	}{
		{name: "xdg", xdg: "/x/state", home: "/h", goos: "linux", want: "/x/state/teammem"},
		{name: "relative xdg ignored", xdg: "rel", home: "/h", goos: "linux", want: "/h/.local/state/teammem"},
		{name: "linux default", home: "/h", goos: "linux", want: "/h/.local/state/teammem"},
		{name: "macOS", home: "/h", goos: "darwin", want: "/h/Library/Application Support/teammem"},
		{name: "no home", goos: "linux", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"XDG_STATE_HOME": tt.xdg, "LOCALAPPDATA": tt.local}
			got, err := StateDir(func(k string) string { return env[k] }, tt.home, tt.goos)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("StateDir = %q, %v; want %q (error %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
