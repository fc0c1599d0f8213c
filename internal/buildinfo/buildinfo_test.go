package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestVersion(t *testing.T) {
	if got := Version("v1.2.3"); got != "v1.2.3" {
		t.Errorf("Version(v1.2.3) = %q", got)
	}
	for name, c := range map[string]struct {
		bi   debug.BuildInfo
		want string
	}{
		"module version": {debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}, "v0.4.0"},
		"revision": {debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}, "dev-0123456789ab-dirty"},
		"nothing": {debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
	} {
		if got := fromBuildInfo(&c.bi); got != c.want {
			t.Errorf("%s: %q, want %q", name, got, c.want)
		}
	}
}
