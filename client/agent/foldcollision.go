package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/teammem/teammem/memcore/protocol"
)

// foldCollisions finds keys whose names differ from another's only in case
// (protocol.FoldKey) where one is a local file and another, different key is
// on the server — on a case-insensitive file system writing the server's key
// would overwrite the local file — or, when in.CaseInsensitive, where two
// server keys do; every key of such a group is skipped.
// It returns the skipped keys and one warning per group, keyed by the
// group's first key in order.
func foldCollisions(in Input) (skip map[string]bool, warn map[string]string) {
	groups := map[string][]string{}
	local := map[string]bool{}
	add := func(k string) {
		f := protocol.FoldKey(k)
		if !slices.Contains(groups[f], k) {
			groups[f] = append(groups[f], k)
		}
	}
	for k := range in.Local {
		local[k] = true
		add(k)
	}
	for k := range in.LocalSkipped {
		local[k] = true
		add(k)
	}
	for k := range in.Server {
		add(k)
	}
	skip, warn = map[string]bool{}, map[string]string{}
	for _, keys := range groups {
		if len(keys) < 2 || !localMeetsServer(keys, local, in.Server) && !(in.CaseInsensitive && serverTwins(keys, in.Server)) {
			continue
		}
		slices.Sort(keys)
		quoted := make([]string, len(keys))
		for i, k := range keys {
			skip[k] = true
			quoted[i] = fmt.Sprintf("%q", k)
		}
		warn[keys[0]] = fmt.Sprintf("skipping %s: the names differ only in case, and writing one could overwrite the other; rename one of them",
			strings.Join(quoted, " and "))
	}
	return skip, warn
}

// localMeetsServer reports whether some local key of keys differs from some
// server key of keys.
func localMeetsServer(keys []string, local map[string]bool, server map[string]string) bool {
	for _, l := range keys {
		if !local[l] {
			continue
		}
		for _, s := range keys {
			if _, ok := server[s]; ok && s != l {
				return true
			}
		}
	}
	return false
}

// serverTwins reports whether two keys of keys are on the server.
func serverTwins(keys []string, server map[string]string) bool {
	n := 0
	for _, k := range keys {
		if _, ok := server[k]; ok {
			n++
		}
	}
	return n >= 2
}
