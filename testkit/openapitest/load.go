package openapitest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// DocumentName is the file Load looks for.
const DocumentName = "openapi.yaml"

// Find returns the path of openapi.yaml, looking in dir and then in each of
// its parents.
func Find(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("find %s: %w", DocumentName, err)
	}
	for {
		p := filepath.Join(dir, DocumentName)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("find %s: %w", DocumentName, os.ErrNotExist)
		}
		dir = parent
	}
}

// LoadFile loads the document at path and validates it.
func LoadFile(ctx context.Context, path string) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	loader.Context = ctx
	doc, err := loader.LoadFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	if err := doc.Validate(ctx); err != nil {
		return nil, fmt.Errorf("validate %s: %w", path, err)
	}
	if !doc.IsOpenAPI31OrLater() {
		return nil, fmt.Errorf("validate %s: %w", path, errors.New("want openapi 3.1"))
	}
	return doc, nil
}

// Load finds openapi.yaml above the test's working directory, loads and
// validates it, failing the test when it cannot.
func Load(t testing.TB) *openapi3.T {
	t.Helper()
	path, err := Find(".")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := LoadFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
