package postgres

import (
	"context"
	"errors"

	"github.com/teammem/teammem/server"
)

// Search finds live entries; see server.Store.
func (db *DB) Search(ctx context.Context, q server.SearchRequest) ([]server.SearchHit, error) {
	return nil, errors.New("search: not implemented yet")
}
