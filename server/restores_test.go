package server

import (
	"maps"
	"testing"
)

// TestDeriveRestores: a put is a restore of the newest earlier put of the
// key with its checksum, never of the revision right before it; a delete
// is never a restore, though it carries the checksum it deleted.
func TestDeriveRestores(t *testing.T) {
	put := func(v int64, sum string) Revision { return Revision{Version: v, Op: OpPut, Checksum: sum} }
	del := func(v int64, sum string) Revision { return Revision{Version: v, Op: OpDelete, Checksum: sum} }
	tests := []struct {
		name string
		revs []Revision // newest first
		want map[int64]int64
	}{
		{"one put", []Revision{put(1, "a")}, map[int64]int64{}},
		{"edits", []Revision{put(3, "c"), put(2, "b"), put(1, "a")}, map[int64]int64{}},
		{"back to an older content", []Revision{put(3, "a"), put(2, "b"), put(1, "a")}, map[int64]int64{3: 1}},
		{"a deleted key brought back", []Revision{put(5, "a"), del(4, "a"), put(1, "a")}, map[int64]int64{5: 1}},
		{"the newest of several", []Revision{put(9, "a"), put(7, "b"), put(5, "a"), put(3, "b"), put(1, "a")},
			map[int64]int64{9: 5, 7: 3, 5: 1}},
		{"not the revision right before", []Revision{put(2, "a"), put(1, "a")}, map[int64]int64{}},
		{"a delete is no restore", []Revision{del(3, "a"), put(2, "b"), del(1, "b")}, map[int64]int64{}},
		{"recreated after a delete with new content", []Revision{put(3, "c"), del(2, "a"), put(1, "a")}, map[int64]int64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			deriveRestores(tt.revs)
			got := map[int64]int64{}
			for _, r := range tt.revs {
				if r.RestoreOf != 0 {
					got[r.Version] = r.RestoreOf
				}
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("restores = %v; want %v", got, tt.want)
			}
		})
	}
}
