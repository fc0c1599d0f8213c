package migrations

import (
	"errors"
	"io/fs"
	"testing"
)

func TestLatestAndPairs(t *testing.T) {
	for name, fsys := range map[string]fs.FS{"postgres": Postgres, "sqlite": SQLite} {
		t.Run(name, func(t *testing.T) {
			latest, err := Latest(fsys)
			if err != nil || latest < 1 {
				t.Fatalf("Latest = %d, %v; want >= 1", latest, err)
			}
			ups, _ := fs.Glob(fsys, "*.up.sql")
			downs, _ := fs.Glob(fsys, "*.down.sql")
			if len(ups) != len(downs) || len(ups) == 0 {
				t.Errorf("%d up and %d down migrations; want equal and > 0", len(ups), len(downs))
			}
		})
	}
}

func TestCheck(t *testing.T) {
	latest, _ := Latest(SQLite)
	tests := []struct {
		name    string
		version uint
		dirty   bool
		wantErr bool
	}{
		{"current", latest, false, false},
		{"pending", latest - 1, false, true},
		{"dirty", latest, true, true},
		{"newer", latest + 1, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(SQLite, tt.version, tt.dirty)
			if got := errors.Is(err, ErrSchemaMismatch); got != tt.wantErr {
				t.Errorf("Check(%d, %v) = %v; want mismatch %v", tt.version, tt.dirty, err, tt.wantErr)
			}
		})
	}
}
