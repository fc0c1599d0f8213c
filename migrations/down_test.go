package migrations

import (
	"errors"
	"testing"
	"testing/fstest"
)

func TestDownPlan(t *testing.T) {
	fsys := fstest.MapFS{
		"000001_init.up.sql":     {Data: []byte("CREATE TABLE a (x int);")},
		"000001_init.down.sql":   {Data: []byte("DROP TABLE a;")},
		"000002_more.up.sql":     {Data: []byte("CREATE TABLE b (x int);")},
		"000002_more.down.sql":   {Data: []byte("DROP TABLE b;")},
		"000004_later.up.sql":    {Data: []byte("CREATE TABLE c (x int);")},
		"000004_later.down.sql":  {Data: []byte("DROP TABLE c;")},
		"000010_unused.up.sql":   {Data: []byte("CREATE TABLE d (x int);")},
		"000010_unused.down.sql": {Data: []byte("DROP TABLE d;")},
	}
	for name, c := range map[string]struct {
		current    uint
		n          int
		wantTarget uint
		wantSteps  []uint
		wantErr    error
	}{
		"one":            {current: 4, n: 1, wantTarget: 2, wantSteps: []uint{4}},
		"all":            {current: 4, n: 3, wantTarget: 0, wantSteps: []uint{4, 2, 1}},
		"first only":     {current: 1, n: 1, wantTarget: 0, wantSteps: []uint{1}},
		"more than all":  {current: 1, n: 5, wantErr: ErrTooManySteps},
		"none applied":   {current: 0, n: 1, wantErr: ErrTooManySteps},
		"one too many":   {current: 4, n: 4, wantErr: ErrTooManySteps},
		"newest applied": {current: 10, n: 2, wantTarget: 2, wantSteps: []uint{10, 4}},
	} {
		t.Run(name, func(t *testing.T) {
			plan, target, err := DownPlan(fsys, c.current, c.n)
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("err = %v, want %v", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []uint
			for _, s := range plan {
				got = append(got, s.Version)
			}
			if target != c.wantTarget || len(got) != len(c.wantSteps) {
				t.Fatalf("plan %v → %d, want %v → %d", got, target, c.wantSteps, c.wantTarget)
			}
			for i := range got {
				if got[i] != c.wantSteps[i] {
					t.Fatalf("plan %v, want %v", got, c.wantSteps)
				}
			}
		})
	}
	if _, _, err := DownPlan(fsys, 4, 0); err == nil {
		t.Error("down 0 accepted")
	}
}
